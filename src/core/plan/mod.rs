//! (plan: to be built by its issue.)
