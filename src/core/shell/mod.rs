//! (shell: to be built by its issue.)
