//! Compiling an uploaded folder's LESS: confined to the folder and the platform's imports,
//! bounded in time and memory (issue 40, findings 1, 7).
