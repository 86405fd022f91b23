//! The store's money and roles (issue 40, findings 5, 6, 8, 10, 14).
