//! Telling the model which writes the sandbox refused, from the command's own error messages.

/// Error texts that a refused write produces (EACCES from Landlock, EPERM from seccomp,
/// EXDEV for a link or rename across Landlock rules, EROFS from tools that map it so).
const MARKERS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Invalid cross-device link",
    "Read-only file system",
    "EACCES",
    "EPERM",
];

/// Lines kept at most.
const MAX_LINES: usize = 20;

/// The distinct lines of `output` that report a refused operation (at most 20, each at most
/// 300 characters), in order of appearance.
pub fn blocked_writes(output: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in output.lines() {
        let line = line.trim();
        if line.is_empty() || !MARKERS.iter().any(|m| line.contains(m)) {
            continue;
        }
        let short: String = line.chars().take(300).collect();
        if !lines.contains(&short) {
            lines.push(short);
            if lines.len() == MAX_LINES {
                break;
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::blocked_writes;

    #[test]
    fn keeps_distinct_refusals_only() {
        let text = "ok\nsh: 1: cannot create x: Permission denied\n\
                    sh: 1: cannot create x: Permission denied\ntouch: Operation not permitted\n\
                    ln: failed to create hard link 'h' => 'a': Invalid cross-device link\n";
        assert_eq!(
            blocked_writes(text),
            vec![
                "sh: 1: cannot create x: Permission denied",
                "touch: Operation not permitted",
                "ln: failed to create hard link 'h' => 'a': Invalid cross-device link"
            ]
        );
        assert!(blocked_writes("all fine\n").is_empty());
    }
}
