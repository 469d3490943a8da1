//! Unit tests of the classifier's building blocks; the corpus and property tests are in `tests/`.

use brush_parser::ast::Word;

use super::budget::nesting_openers;
use super::options::{self, OptSpec, resolve_long};
use super::{Dialect, classify, parser_options, words};

fn arg(raw: &str) -> words::Arg {
    words::analyse(&Word::new(raw), &parser_options(false), Dialect::Bash).unwrap()
}

fn read_only(command: &str) -> bool {
    classify(command).read_only
}

#[test]
fn words_lose_their_quotes_and_escapes() {
    for (raw, value) in [
        ("s'o'rt", "sort"),
        ("\"sort\"", "sort"),
        ("so\\rt", "sort"),
        ("'it''s'", "its"),
        ("\"a\\$b\\q\"", "a$b\\q"),
        ("a\\ b", "a b"),
        ("\\*", "*"),
        ("'*.py'", "*.py"),
        ("~/x", "~/x"),
        ("[", "["),
    ] {
        let arg = arg(raw);
        assert_eq!(arg.value.as_deref(), Some(value), "{raw}: {arg:?}");
    }
}

#[test]
fn words_known_only_at_run_time_say_why() {
    for (raw, why) in [
        ("$x", "parameter expansion"),
        ("\"$x\"", "parameter expansion"),
        ("*.py", "unquoted glob"),
        ("[ab]c", "unquoted glob"),
        ("[a\"b\"]", "unquoted glob"),
        ("{a,b}", "brace expansion"),
        ("x{1..3}", "brace expansion"),
        ("$'\\x41'", "ANSI-C quoting"),
        ("$\"hi\"", "locale-translated string"),
    ] {
        let arg = arg(raw);
        assert_eq!((arg.value.as_deref(), arg.runtime), (None, Some(why)), "{raw}");
    }
    // Quoted or escaped braces and a lone bracket are literal.
    assert!(arg("'{a,b}'").value.is_some());
    assert!(arg("\\{a,b}").value.is_some());
}

#[test]
fn words_that_run_code_are_refused() {
    for raw in [
        "$(id)",
        "`id`",
        "\"$(id)\"",
        "$((1+1))",
        "$[1+1]",
        "${x:-$(id)}",
        "${a[1]}",
        "${!x}",
        "${#x}",
    ] {
        assert!(
            words::analyse(&Word::new(raw), &parser_options(false), Dialect::Bash).is_err(),
            "{raw}"
        );
    }
    for raw in ["$x", "${x}", "$1", "$@", "\"$*\"", "${a[@]}"] {
        assert!(
            words::analyse(&Word::new(raw), &parser_options(false), Dialect::Bash).is_ok(),
            "{raw}"
        );
    }
}

#[test]
fn long_options_resolve_like_getopt_long() {
    let known = [
        "expression",
        "file",
        "in-place",
        "line-length",
        "silent",
        "separate",
        "sandbox",
    ];
    assert_eq!(resolve_long("in", &known), Some("in-place"));
    assert_eq!(resolve_long("file", &known), Some("file"));
    assert_eq!(resolve_long("s", &known), None, "ambiguous");
    assert_eq!(resolve_long("nope", &known), None);
    assert_eq!(resolve_long("", &known), None);
}

#[test]
fn options_are_checked_everywhere_and_values_are_not_operands() {
    const SPEC: OptSpec = OptSpec {
        deny_short: &[('o', "writes a file")],
        deny_long: &[("output", "writes a file")],
        value_short: "k",
        attached_short: "",
        value_long: &["key"],
    };
    let args = |line: &str| line.split(' ').map(arg).collect::<Vec<_>>();
    let operands = |line: &str| {
        options::operands("p", &args(line), &SPEC)
            .map(|ops| ops.iter().map(|a| a.raw.clone()).collect::<Vec<_>>())
    };
    assert_eq!(
        operands("-k 2 a --key 3 b --key=4 c -k5 d").unwrap(),
        ["a", "b", "c", "d"]
    );
    assert_eq!(operands("a -- -o *").unwrap(), ["a", "-o", "*"]);
    for refused in [
        "-o x",
        "x -o",
        "-no",
        "--output=x",
        "--out",
        "--o",
        "-k -o",
        "$x",
        "*",
    ] {
        assert!(operands(refused).is_err(), "{refused}");
    }
    assert_eq!(
        operands("-no").unwrap_err().reason,
        "`p -no` (`-o`) writes a file",
        "the cluster and the option are both named"
    );
}

#[test]
fn nesting_is_over_counted_not_under_counted() {
    assert_eq!(nesting_openers("ls -la"), 0);
    assert_eq!(
        nesting_openers("(ls) && { pwd; } | echo `id` $(x)"),
        5,
        "each backquote counts"
    );
    assert_eq!(nesting_openers("if while until for case select function"), 7);
    assert_eq!(nesting_openers("echo iffy forward"), 0);
}

#[test]
fn sed_scripts_are_parsed_not_matched() {
    let allowed = [
        "p",
        "1,20p",
        "$!N;P;D",
        "/a/,/b/{s/x/y/g;p}",
        "0,/re/d",
        "1~2p",
        "/x/I,+3p",
        "\\%a/b%p",
        "s/w/e/",
        "s|a|b|gpI2",
        "s/a\\/w out/b/",
        "y/abc/xyz/",
        "a hello; w out",
        "1i\\\nw not a command",
        "r input.txt",
        ":a;N;$!ba;s/\\n/ /g",
        "# comment w out\np",
        "l 40",
        "q5",
        "=",
    ];
    for script in allowed {
        assert!(
            read_only(&format!("sed -n '{script}' f")),
            "{script}: {:?}",
            classify(&format!("sed -n '{script}' f"))
        );
    }
    let refused = [
        ("w out", "`w` writes a file"),
        ("1W out", "`W` writes a file"),
        ("s/a/b/w out", "the `w` flag writes a file"),
        ("s/a/b/gw out", "the `w` flag writes a file"),
        ("s/a/b\\\n/w out", "the `w` flag"),
        ("e id", "`e` runs a shell command"),
        ("s/x/id/e", "the `e` flag"),
        ("/a/{p;w out\n}", "`w` writes a file"),
        (":a;w out", "`w` writes a file"),
        ("b end; w out", "`w` writes a file"),
        ("s/[/]/x/", "unexpected"),
        ("s/a/b", "unterminated"),
        ("{p", "unmatched"),
        ("p}", "unexpected `}`"),
        ("k", "unknown command"),
    ];
    for (script, why) in refused {
        let verdict = classify(&format!("sed -n '{script}' f"));
        assert!(
            !verdict.read_only && verdict.reason.contains(why),
            "{script}: {verdict:?}"
        );
    }
}

#[test]
fn sed_options_and_script_sources() {
    for ok in [
        "sed -ne 's/a/b/p' f",
        "sed --expression=p f",
        "sed --e p f",
        "sed -l 5 p f",
        "sed -s -u -z p",
        "sed -- p f",
    ] {
        assert!(read_only(ok), "{ok}: {:?}", classify(ok));
    }
    for bad in [
        "sed -i p f",
        "sed -Ei p f",
        "sed --in-place=.bak p f",
        "sed -f s.sed f",
        "sed --file=s.sed f",
        "sed --s p f",
        "sed -x p f",
        "sed",
        "sed -e 'a\\' -e 'w out' f",
        "sed -e p -e 'w out' f",
        "sed -e -i f",
    ] {
        assert!(!read_only(bad), "{bad}");
    }
}

#[test]
fn wrappers_check_the_command_they_run() {
    for ok in [
        "timeout 5 ls",
        "timeout -s KILL 5 ls",
        "timeout --signal=TERM -k 1 5 ls",
        "nice -n 5 ls",
        "nice -5 ls",
        "env LANG=C ls",
        "nice",
        "env",
        "time -p ls",
        "env -i ls",
        "env -u HOME -C /tmp ls",
        "env --chdir=/tmp ls",
        "timeout -vs KILL 5 ls",
        "timeout -sKILL 5 ls",
        "timeout --kill=1 2 ls",
        "nice -n5 ls",
        "nice --adj 3 ls",
        "command ls",
        "command -p ls",
        "\\time -p ls",
    ] {
        assert!(read_only(ok), "{ok}: {:?}", classify(ok));
    }
    for bad in [
        "timeout 5 rm x",
        "timeout $t ls",
        "nice -n 5 rm x",
        "env rm x",
        "env PAGER=x ls",
        "time -o f ls",
        "env LANG=C env PATH=. ls",
        // An option's value is never taken for the wrapped command; unknown options fail closed.
        "time -f echo touch x",
        "\\time -f echo touch x",
        "'time' -f echo touch x",
        "timeout -s KILL touch x",
        "timeout -s KILL 5 touch x",
        "timeout --foo 5 ls",
        "timeout -x 5 ls",
        "timeout rm ls",
        "env -S 'touch x'",
        "env --split-string='touch x'",
        "env -u",
        "env LANG=C time -f echo touch x",
        "nice -n 5 -x ls",
        "nice --foo ls",
        "command -p rm x",
        "command touch x",
        "time -v ls",
    ] {
        assert!(!read_only(bad), "{bad}");
    }
}

#[test]
fn git_listing_and_config_reading() {
    for ok in [
        "git branch -avv",
        "git branch --list 'f*'",
        "git branch --contains HEAD",
        "git tag",
        "git tag -l",
        "git config -l",
        "git config --file .gitmodules --get-regexp path",
        "git config get user.name",
        "git remote show -n origin",
        "git --no-lazy-fetch stash show -p",
        "git reflog show HEAD",
        "git --git-dir=.git --work-tree=. status",
        "git -C sub log",
    ] {
        assert!(read_only(ok), "{ok}: {:?}", classify(ok));
    }
    for bad in [
        "git branch x",
        "git branch -m a b",
        "git branch --set-upstream-to=o/m",
        "git tag -a v1",
        "git tag -d v1",
        "git config user.name x",
        "git config --unset user.name",
        "git config set user.name x",
        "git remote remove origin",
        "git remote show origin",
        "git remote show https://example.com/x.git",
        "git stash show -p",
        "git remote set-url origin x",
        "git stash drop",
        "git worktree add ../x",
        "git notes add -m x",
        "git reflog delete HEAD@{1}",
        "git -C",
        "git --paginate log",
        "git",
        "git --version --help",
    ] {
        assert!(!read_only(bad), "{bad}");
    }
}

#[test]
fn small_policies() {
    for ok in [
        "uniq -c",
        "uniq -w 3 in",
        "date",
        "date -u +%s",
        "date -Iseconds",
        "date -Is",
        "dd if=x bs=1 count=2",
        "command -v ls",
        "command -V ls",
        "command ls",
        "[ a = b ]",
        "test -n x",
    ] {
        assert!(read_only(ok), "{ok}: {:?}", classify(ok));
    }
    for bad in [
        "uniq a b",
        "date -us x",
        "date -I 0101",
        "date --set=x",
        "dd if=x conv=notrunc",
        "dd seek=1",
        "command rm x",
        "[ -v x ]",
        "test $x = y",
    ] {
        assert!(!read_only(bad), "{bad}");
    }
}

/// Text without the markers of [`super::parsed_differently_as_sh`], from pieces of every other
/// part of the grammar.
fn unmarked() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    const PARTS: &[&str] = &[
        "ls", "cat", "x", " ", "|", "||", "&&", ";", "&", "\n", "(", ")", "{ ", " }", "'", "\"", "\\", "$",
        "$x", "$(", "`", "<", ">", "2>&1", "<<EOF\n", "EOF\n", "*", "[", "]", "if ", "then ", "fi", "for ",
        "in ", "do ", "done", "case ", "esac", "!", "#", "=", "X=1 ", "$'a'", "{a,b}", "~", "${x}",
        "${x:-y}", "${!x}", "${x/a/b}", "${x[1]}", "(( ", "[[ ", " ]", "<(", ">(", "a=(", "$((", "timeout ",
        "runtime",
    ];
    prop::collection::vec(prop::sample::select(PARTS), 0..24).prop_map(|p| p.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// Skipping the POSIX reading is sound: without a marker, a line the bash reading accepts
    /// parses and is accepted exactly alike by the POSIX reading.
    #[test]
    fn the_second_reading_repeats_the_first_without_markers(command in unmarked()) {
        proptest::prop_assume!(!super::parsed_differently_as_sh(&command));
        let read = |sh: bool| {
            let options = parser_options(sh);
            super::parse(&command, &options).ok().map(|program| {
                let verdict = super::walk::Walker::check(&program, &command, &options, Dialect::Sh);
                (program.to_string(), verdict)
            })
        };
        if let Some((text, Ok(programs))) = read(false) {
            proptest::prop_assert_eq!(Some((text, Ok(programs))), read(true));
        }
    }
}
