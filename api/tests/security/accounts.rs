//! Members' sessions, form email answers and invalid text (issue 40, findings 9, 11, 12).
