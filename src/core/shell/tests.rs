//! Unit tests of the classifier's building blocks; the corpus and property tests are in `tests/`.

use super::classify;

#[test]
fn smoke() {
    for (cmd, ro) in [
        ("ls -la", true),
        ("sort -o x y", false),
        ("git log --oneline", true),
    ] {
        let v = classify(cmd);
        assert_eq!(v.read_only, ro, "{cmd}: {v:?}");
    }
}
