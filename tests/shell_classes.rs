//! One test per class of command the classifier used to misjudge (issue 15): each refuses the
//! whole class, not only the example, and each newly allowed read-only form is allowed.

use planmode::core::shell::{Dialect, Verdict, classify, classify_as};

fn allowed(commands: &[&str]) {
    for command in commands {
        let verdict = classify(command);
        assert!(verdict.read_only, "{command:?} should be allowed: {verdict:?}");
    }
}

fn refused(commands: &[&str], why: &str) {
    for command in commands {
        let verdict = classify(command);
        assert!(!verdict.read_only, "{command:?} should be refused: {verdict:?}");
        assert!(
            verdict.reason.contains(why),
            "{command:?}: expected {why:?} in {verdict:?}"
        );
    }
}

#[test]
fn wrapper_option_values_are_never_the_wrapped_command() {
    refused(
        &[
            "time -f echo touch x",
            "\\time -f echo touch x",
            "\"time\" -f echo touch x",
            "t\"ime\" -o out ls",
            "env LANG=C time -f echo touch x",
            "timeout -s KILL touch x",
            "timeout --signal KILL touch x",
            "timeout -k 1 touch x",
            "nice -n touch x",
        ],
        "",
    );
    refused(
        &[
            "timeout --frobnicate 5 ls",
            "env -Z ls",
            "nice -q ls",
            "env --split-string='touch x'",
        ],
        "known to accept",
    );
    // bash's `time` keyword takes `-v` for the command; dash's GNU `time` takes it as an option.
    refused(&["time -v ls", "time -a ls"], "");
    allowed(&[
        "timeout -s KILL 5 ls",
        "timeout -vk 1 5 ls",
        "timeout --preserve-status 5s grep -r x .",
        "env -i LC_ALL=C ls",
        "nice -n 10 ls",
        "nice -10 ls",
        "time -p ls",
        "command -p ls",
    ]);
}

#[test]
fn here_document_delimiters_must_be_read_alike() {
    for delimiter in [
        "$'EOF'", "$\"EOF\"", "E\"OF\"", "'E'OF", "E\\OF", "E\\\nOF", "\"EOF", "EOF\\",
    ] {
        let command = format!("cat <<{delimiter}\nx\nEOF\ntouch pwned\nEOF\n");
        let verdict = classify(&command);
        assert!(!verdict.read_only, "{command:?}: {verdict:?}");
    }
    for delimiter in ["EOF", "'EOF'", "\"EOF\"", "\\EOF", "-EOF", "- 'EOF'", "-\\EOF"] {
        let command = format!("cat <<{delimiter}\nx\n\tEOF\n");
        let command = if delimiter.starts_with('-') {
            command
        } else {
            format!("{command}EOF\n")
        };
        let verdict = classify(&command);
        assert!(verdict.read_only, "{command:?}: {verdict:?}");
    }
}

#[test]
fn here_document_bodies_cannot_hide_commands_or_expansions() {
    refused(
        &[
            "cat <<EOF\n$\\\n(touch x)\nEOF\n",
            "cat <<EOF\n$(\\\ntouch x)\nEOF\n",
            "cat <<EOF\n`touch x`\nEOF\n",
            "cat <<EOF\n$((x=1))\nEOF\n",
            "cat <<EOF\n$[x=1]\nEOF\n",
            "cat <<EOF\n${x:=1}\nEOF\n",
            "cat <<EOF\n${x?$(id)}\nEOF\n",
        ],
        "",
    );
    // Line continuations inside a body: shells join the lines before looking for the delimiter.
    refused(
        &[
            "cat <<EOF\nEO\\\nF\ntouch x\nEOF\n",
            "cat <<'EOF'\nfoo\\\nEOF\ntouch x\nEOF\n",
        ],
        "backslash",
    );
    // The rest of the operator's line must not open quotes the body could hide in.
    refused(&["cat <<EOF; echo 'a\nEOF\n'; touch x\nEOF\n"], "");
    allowed(&[
        "cat <<EOF\nhello $USER and ${HOME}\nEOF\n",
        "cat <<'EOF'\n$(not run) `nor this`\nEOF\n",
        "cat <<A <<B\na\nA\nb\nB\n",
        "grep x <<EOF\nline\nEOF\n",
    ]);
}

#[test]
fn dialect_only_constructs_are_judged_under_the_dialect() {
    // One command to bash, three to dash.
    let split = "echo $'x\\' ; touch f ; echo ' #'";
    assert!(!classify(split).read_only, "{:?}", classify(split));
    refused(
        &[
            "echo $'a'",
            "echo $\"a\"",
            "ls &>/dev/null",
            "grep x <<< y",
            "ls |& grep x",
        ],
        "",
    );
    // Under bash the same constructs are modelled.
    for command in ["echo $'a'", "ls &>/dev/null", "cut -d $'\\t' -f1 f"] {
        let verdict = classify_as(command, Dialect::Bash);
        assert!(verdict.read_only, "{command:?}: {verdict:?}");
    }
    assert_eq!(Dialect::from_name("sh"), Some(Dialect::Sh));
    assert_eq!(Dialect::from_name("zsh"), None);
}

#[test]
fn assignments_of_any_kind_are_refused() {
    refused(
        &[
            "true {PATH}>/dev/null; ls",
            "true {HOME}< /dev/null",
            "{IFS}>/dev/null ls",
            "ls {x}>&-",
        ],
        "named descriptors",
    );
    refused(
        &[
            "read PATH < /dev/null; ls",
            "printf -v PATH x; ls",
            "mapfile PATH < /dev/null",
            "getopts a PATH",
            "export PATH=.",
            "declare -x PATH=.",
            "echo ${PATH:=.}; ls",
            "echo $((PATH=1))",
            "PATH=. ls",
            "HOME=/tmp git log",
            "GIT_DIR=x git log",
            "PAGER=x git log",
            "LESSOPEN='|x' ls",
            "BASH_ENV=x ls",
            "ENV=x ls",
            "CDPATH=x cd a",
            "for PATH in .; do ls; done",
            "for http_proxy in x; do ls; done",
            "let x=1",
        ],
        "",
    );
}

#[test]
fn options_that_point_writes_somewhere_are_refused() {
    refused(
        &[
            "sort -T . in",
            "sort -T. in",
            "sort -uT . in",
            "sort --temporary-directory=. in",
            "sort --temp . in",
            "sort -o out in",
            "sort --output out in",
            "tree --output x",
            "shuf --output=x in",
            "xxd in out",
            "hostname newname",
        ],
        "",
    );
    allowed(&[
        "sort -k2 -t, in",
        "xxd in",
        "xxd -l 16 in",
        "hostname",
        "hostname -f",
    ]);
    refused(&["uniq src/*.txt", "xxd src/*.bin", "uniq -c *"], "");
}

#[test]
fn bash_five_three_command_substitutions_are_refused() {
    refused(
        &[
            "echo ${ touch x; }",
            "echo ${|touch x;}",
            "echo \"${ id;}\"",
            "cat ${\ttouch x; }",
        ],
        "",
    );
}

#[test]
fn git_that_fetches_verifies_or_takes_urls_is_refused() {
    refused(
        &[
            "git show HEAD",
            "git log -p",
            "git diff HEAD~1",
            "git diff --cached",
            "git diff main -- src",
            "git blame f",
            "git grep x HEAD",
            "git grep --cached x",
            "git grep -e x HEAD",
            "git log -S x",
            "git cat-file -p HEAD:f",
            "git stash list -p",
            "git reflog -p",
            "git notes show",
        ],
        "--no-lazy-fetch",
    );
    refused(
        &[
            "git log --show-signature",
            "git log --format='%G?'",
            "git show -s --pretty='%GS'",
            "git log --show-sig",
        ],
        "gpg",
    );
    refused(
        &[
            "git remote show origin",
            "git remote show https://example.com/r.git",
            "git for-each-ref --format='%(signature)'",
        ],
        "",
    );
    allowed(&[
        "git --no-lazy-fetch show HEAD",
        "git --no-lazy-fetch log -S'classify' --oneline",
        "git --no-lazy-fetch log -G'fn check' -- src",
        "git --no-lazy-fetch grep -n -e pattern",
        "git log --oneline -- src",
        "git diff",
        "git diff --stat -- src",
        "git grep -n x",
        "git grep -l x -- '*.rs'",
        "git show -s --format=%H HEAD",
        "git remote show -n origin",
        "git help -a",
        "git help -g",
        "git diff --no-index a b",
        "git config user.name",
        "git config --file .gitmodules submodule.x.path",
    ]);
    refused(
        &[
            "git config --file f edit",
            "git config edit",
            "git config user.name bob",
        ],
        "",
    );
    refused(
        &[
            "git --no-lazy-fetch grep -nO'sh -c id' x",
            "git help log",
            "git help",
        ],
        "",
    );
}

#[test]
fn network_paths_through_variables_are_refused() {
    refused(
        &[
            "for h in /dev/tcp/example.com/80; do cat < $h; done",
            "cat < \"$f\"",
            "cat < /dev/tc*/x/1",
        ],
        "",
    );
}

#[test]
fn find_exec_judges_its_command() {
    allowed(&[
        "find . -name '*.md' -exec grep -l 'plan mode' {} \\;",
        "find src -exec grep -l x {} +",
        "find . -execdir wc -l {} \\;",
        "find . -exec sed -n 1p {} \\; -print",
    ]);
    refused(
        &[
            "find . -exec rm {} \\;",
            "find . -exec grep x {} \\; -exec touch y \\;",
            "find . -exec sed {} \\;",
            "find w -exec sed 's/a/b/{}' \\;",
            "find . -exec env {} \\;",
            "find . -exec grep x {}",
            "find . -exec \\;",
            "find . -ok cat {} \\;",
        ],
        "",
    );
}

#[test]
fn awk_that_only_prints_is_allowed() {
    allowed(&[
        "awk '{print $1}' f",
        "awk -F: '{print $1}' /etc/passwd",
        "awk -F'\\t' '$2 == \"true\" {print $1}' f",
        "awk 'NR>=10 && NR<=20' f",
        "awk '$3 > 100 {print $1}' f",
        "awk -v OFS=, '{print $1, \"a > c\"}' f",
        "awk '{ total += length($0) } END { print total / NR }' f",
    ]);
    refused(
        &[
            "awk '{print > \"out\"}' f",
            "awk '{printf \"%s\", $0 >> \"out\"}' f",
            "awk '{system(\"touch x\")}' f",
            "awk '{print | \"sh\"}' f",
            "awk 'BEGIN {\"id\" | getline x}'",
            "awk 'BEGIN { getline < \"/inet/tcp/0/example.com/80\" }'",
            "awk -f prog.awk f",
            "awk -o out '{print}' f",
            "gawk -l filefuncs 'BEGIN{}'",
            "awk '@load \"x\"'",
            "awk 'BEGIN{ARGV[1]=\"/etc/shadow\"}{print}' f",
            "awk '{print}' /inet/tcp/0/example.com/80",
            "awk '/\"/ { system(\"touch x\") } /\"/' f",
            "awk '/\"/ {print > \"x\"} /\"/' f",
            "awk '{print $1,\n $2 > \"x\"}' f",
            "awk '{print $1 \\\n > \"x\"}' f",
            "awk '{print \"a|b\"}' f",
            "awk $prog f",
        ],
        "",
    );
}

#[test]
fn every_input_gets_a_verdict_without_hanging_or_overflowing() {
    // Each of these used to loop forever, grow exponentially or overflow the stack.
    let mut inputs = vec![
        "cat <<\"\" ".to_owned(),
        "cat <<'' \n \n".to_owned(),
        "cat <<-\"\"\n".to_owned(),
        "cat <<$'' x".to_owned(),
        format!("[[ {}x ]]", "! ".repeat(100_000)),
        format!("{}ls", "! ".repeat(30_000)),
        format!("[[ {} ]]", vec!["a"; 20_000].join(" && ")),
        format!("{}ls", "env ".repeat(16_000)),
        format!("{}ls", "time -p ".repeat(8_000)),
        format!("find . {}", "-exec find . ".repeat(5_000)),
    ];
    for opener in ["$((", "$(", "${", "$[", "`"] {
        inputs.push(format!("cat <<EOF\n{}\nEOF\n", opener.repeat(64)));
        inputs.push(format!("echo \"{}\"", opener.repeat(64)));
    }
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || inputs.iter().map(|i| classify(i)).collect::<Vec<Verdict>>())
        .unwrap();
    for verdict in handle
        .join()
        .expect("the classifier must not overflow a 1 MiB stack")
    {
        assert!(!verdict.read_only, "{verdict:?}");
    }
}

#[test]
fn patterns_with_a_literal_start_are_never_options() {
    allowed(&[
        "rg -n '^## ' docs/*.md",
        "file target/release/*.so",
        "printf '%s\\n' src/*.rs",
        "awk '/fn /{print FILENAME}' src/*.rs",
        "sort src/*.txt",
        "sed -n 1p src/*.rs",
    ]);
    // A pattern that may start with `-`, or that also expands a variable, is still refused.
    refused(
        &[
            "sort *",
            "sort [-]o x",
            "sort src/*$x",
            "sort ?o",
            "rg x *.md",
            "sed -n 1p *",
        ],
        "",
    );
}
