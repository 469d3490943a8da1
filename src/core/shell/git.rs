//! `git`: only subcommands that read the repository, with global options that cannot inject
//! configuration (`-c alias.x=!sh`, `--config-env`, `--exec-path`) and without options that write
//! (`--output`) or run programs (`grep -O`, `--ext-diff`, gpg through `--show-signature` or
//! `%G?`), that contact a remote (`remote show` without `-n`), or that read file contents, which
//! a partial clone fetches from its promisor remote (writing packs) unless `--no-lazy-fetch`.

use super::Deny;
use super::options::{self, OptSpec};
use super::words::Arg;

const NAME: &str = "git";

/// Subcommands that only read, checked with [`READ_SPEC`].
const READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "grep",
    "whatchanged",
    "merge-base",
    "name-rev",
    "for-each-ref",
    "show-ref",
    "show-branch",
    "cherry",
    "range-diff",
    "count-objects",
    "var",
    "check-ignore",
    "check-attr",
    "diff-tree",
    "diff-files",
    "diff-index",
    "version",
];

/// Long options refused on every read-only subcommand.
const DENY_LONG: &[(&str, &str)] = &[
    ("output", "writes a file"),
    ("open-files-in-pager", "runs a command"),
    ("ext-diff", "runs an external diff program"),
    ("textconv", "runs the text conversion programs from configuration"),
    ("show-signature", "runs gpg, which writes under ~/.gnupg"),
    (
        "help",
        "opens the manual with a pager or browser command from configuration",
    ),
];

/// Options of read-only subcommands other than `grep` (whose `-O` is fine: an order file).
const READ_SPEC: OptSpec = OptSpec {
    deny_long: DENY_LONG,
    ..OptSpec::NONE
};

/// `git grep` options: `-O` opens the matches with a pager command; `-e`/`-f`/`-A`/`-B`/`-C`/`-m`
/// take a value (so `-e -O` searches for `-O`).
const GREP_SPEC: OptSpec = OptSpec {
    deny_short: &[('O', "opens matching files in a pager command")],
    deny_long: DENY_LONG,
    value_short: "efABCm",
    attached_short: "",
    value_long: &[],
};

/// Why a command may fetch missing objects in a partial clone, and how to allow it.
const LAZY_FETCH: &str = "reads file contents, which a partial clone fetches from its promisor remote (network, new packs); run it as `git --no-lazy-fetch ...`";

/// Checks a `git` command line (the words after `git`).
pub(crate) fn check(_name: &str, args: &[Arg]) -> Result<(), Deny> {
    let Some((start, no_lazy_fetch)) = global_options(args)? else {
        return Ok(());
    };
    let Some((sub_word, rest)) = args[start..].split_first() else {
        return Err(Deny::at(NAME, "`git` without a subcommand is not analysed"));
    };
    let sub = sub_word.require_static(NAME)?;
    let refuse = |why: &str| Err(Deny::at(format!("git {sub}"), format!("`git {sub}` {why}")));
    if let Some(arg) = rest.iter().find(|a| {
        a.value
            .as_deref()
            .is_some_and(|v| v.contains("%G") || v.contains("%(signature"))
    }) {
        return Err(Deny::at(
            &arg.raw,
            format!(
                "`git {sub} {}` verifies signatures with gpg, which writes under ~/.gnupg",
                arg.raw
            ),
        ));
    }
    if READ_ONLY.contains(&sub) {
        read_options(sub, rest)?;
        if !no_lazy_fetch && reads_contents(sub, rest) {
            return refuse(LAZY_FETCH);
        }
        return Ok(());
    }
    match sub {
        "help" => help(rest),
        "branch" => listing(sub, rest, "avrli", BRANCH_LIST),
        "tag" => listing(sub, rest, "li", TAG_LIST),
        "config" => config(rest),
        "remote" => remote(rest),
        "stash" | "worktree" | "notes" | "reflog" => {
            let first = rest.first().map(|a| a.require_static(NAME)).transpose()?;
            let reading = match sub {
                "stash" | "notes" => matches!(first, Some("list" | "show")),
                "worktree" => first == Some("list"),
                _ => first.is_none_or(|f| f.starts_with('-') || matches!(f, "show" | "list" | "exists")),
            };
            // `stash show` diffs contents and `notes show` reads a note blob; `stash list` and
            // `reflog` are `log -g` (and take its diff options).
            let as_read = match (sub, first) {
                ("stash", Some("show")) | ("notes", Some("show")) => "diff",
                ("stash", _) | ("reflog", _) => "log",
                _ => sub,
            };
            if reading {
                read_options(sub, rest)?;
                if !no_lazy_fetch && reads_contents(as_read, rest) {
                    return refuse(LAZY_FETCH);
                }
                Ok(())
            } else {
                refuse("changes the repository (only listing and showing are allowed)")
            }
        }
        _ => refuse("is not a read-only git command (it can change the repository or run commands)"),
    }
}

/// Skips the allowed global options and returns where the subcommand starts and whether
/// `--no-lazy-fetch` was given, or `None` for a complete `git --version`; refuses every other
/// global option.
fn global_options(args: &[Arg]) -> Result<Option<(usize, bool)>, Deny> {
    const FLAGS: &[&str] = &[
        "--no-pager",
        "-P",
        "--no-optional-locks",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-replace-objects",
        "--bare",
        "--no-advice",
        "--no-lazy-fetch",
    ];
    let mut no_lazy_fetch = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let value = arg.require_static(NAME)?;
        if !value.starts_with('-') {
            break;
        }
        no_lazy_fetch |= value == "--no-lazy-fetch";
        let needs_path = match value.split_once('=') {
            Some(("--git-dir" | "--work-tree", _)) => false,
            None if matches!(value, "-C" | "--git-dir" | "--work-tree") => true,
            _ if FLAGS.contains(&value) => false,
            _ if value == "--version" => return version_only(args, i),
            _ => {
                let why = match value.split_once('=').map_or(value, |(o, _)| o) {
                    "-c" | "--config-env" => {
                        "sets configuration, and aliases, pagers and hooks from configuration run commands"
                    }
                    "--exec-path" => "changes where git finds the programs it runs",
                    _ => "is a global option that is not analysed",
                };
                return Err(options::refused(NAME, value, why));
            }
        };
        if needs_path {
            let path = args
                .get(i + 1)
                .ok_or_else(|| options::refused(NAME, value, "needs a value"))?;
            path.require_static(NAME)?;
            i += 1;
        }
        i += 1;
    }
    Ok(Some((i, no_lazy_fetch)))
}

/// `git --version` must be the whole command: anything after it is not analysed.
fn version_only(args: &[Arg], at: usize) -> Result<Option<(usize, bool)>, Deny> {
    match args.get(at + 1) {
        None => Ok(None),
        Some(extra) => Err(Deny::at(
            &extra.raw,
            format!("`git --version {}` is not analysed", extra.raw),
        )),
    }
}

fn read_options(sub: &str, rest: &[Arg]) -> Result<(), Deny> {
    let spec = if sub == "grep" { &GREP_SPEC } else { &READ_SPEC };
    options::operands(&format!("{NAME} {sub}"), rest, spec).map(drop)
}

/// Whether a read-only subcommand reads blobs (file contents): those are what a blob-less
/// partial clone lacks and fetches on demand. Commit and tree walks (`log --oneline -- dir`,
/// `ls-tree`, `status`) do not.
fn reads_contents(sub: &str, rest: &[Arg]) -> bool {
    let values = || rest.iter().filter_map(|a| a.value.as_deref());
    match sub {
        // Two files outside the repository: no objects.
        "diff" if values().any(|v| v == "--no-index") => false,
        // The working tree against the index, whose blobs a checkout has fetched: only
        // revisions (any operand before `--`) and `--cached` reach history.
        "diff" => before_dashdash(rest).iter().any(|v| {
            !v.starts_with('-') || matches!(*v, "--cached" | "--staged") || v.starts_with("--merge-base")
        }),
        // The working tree, unless `--cached` or a revision after the pattern.
        "grep" => {
            let words = before_dashdash(rest);
            let given_pattern = words
                .iter()
                .any(|v| matches!(*v, "-e" | "-f") || v.starts_with("-e") || v.starts_with("-f"));
            let positionals = words.iter().filter(|v| !v.starts_with('-')).count();
            words
                .iter()
                .any(|v| matches!(*v, "--cached" | "--untracked" | "--recurse-submodules"))
                || positionals > usize::from(!given_pattern)
        }
        "diff-tree" | "diff-files" | "diff-index" | "blame" | "annotate" | "cat-file" | "range-diff"
        | "whatchanged" | "cherry" => true,
        "show" => {
            let no_patch = values().any(|v| matches!(v, "-s" | "--no-patch"));
            !no_patch || values().any(|v| !v.starts_with('-') && v.contains(':'))
        }
        "ls-tree" => {
            values().any(|v| v == "--long" || (v.starts_with('-') && !v.starts_with("--") && v.contains('l')))
        }
        "rev-list" => values().any(|v| v.starts_with("--objects") || v.starts_with("--filter")),
        "check-attr" => values().any(|v| v.starts_with("--source")),
        "log" | "shortlog" => values().any(shows_diff),
        _ => false,
    }
}

/// The static words of a git command line before `--`.
fn before_dashdash(rest: &[Arg]) -> Vec<&str> {
    rest.iter()
        .filter_map(|a| a.value.as_deref())
        .take_while(|v| *v != "--")
        .collect()
}

/// Whether a `git log` option makes it compute diffs (patches, stats, renames, pickaxe).
fn shows_diff(option: &str) -> bool {
    const LONG: &[&str] = &[
        "--patch",
        "--stat",
        "--numstat",
        "--shortstat",
        "--dirstat",
        "--summary",
        "--pickaxe",
        "--follow",
        "--find-",
        "--check",
        "--word-diff",
        "--color-words",
        "--cc",
        "--diff-merges",
        "--name-only",
        "--name-status",
        "--raw",
        "--full-diff",
        "--binary",
        "--remerge-diff",
        "--function-context",
        "--unified",
        "--histogram",
        "--patience",
        "--minimal",
        "--diff-algorithm",
        "--dd",
        "--compact-summary",
    ];
    match option.strip_prefix('-') {
        Some(long) if long.starts_with('-') => LONG.iter().any(|l| option.starts_with(l)),
        // Short clusters: -p -u -U -S -G -L -M -C -B -c -m -W -t.
        Some(short) => short.chars().next().is_some_and(|c| "puUSGLMCBcmWt".contains(c)),
        None => false,
    }
}

/// `git help -a` / `-g` list commands and guides; any other use opens the manual.
fn help(rest: &[Arg]) -> Result<(), Deny> {
    const LISTING: &[&str] = &["-a", "--all", "-g", "--guides", "--no-verbose", "--verbose"];
    let listing = !rest.is_empty()
        && rest
            .iter()
            .all(|a| a.value.as_deref().is_some_and(|v| LISTING.contains(&v)));
    if listing {
        Ok(())
    } else {
        Err(Deny::at(
            "git help",
            "`git help` opens the manual with a pager or browser command from configuration (only `git help -a` and `-g` list)",
        ))
    }
}

/// Long options of `git branch` and `git tag` that only list and take a value.
const LIST_WITH_VALUE: &[&str] = &[
    "contains",
    "no-contains",
    "merged",
    "no-merged",
    "points-at",
    "sort",
    "format",
];

/// Other long options of `git branch` that only list.
const BRANCH_LIST: &[&str] = &[
    "all",
    "remotes",
    "verbose",
    "list",
    "show-current",
    "color",
    "no-color",
    "column",
    "no-column",
    "ignore-case",
    "abbrev",
    "no-abbrev",
    "omit-empty",
];

/// Other long options of `git tag` that only list.
const TAG_LIST: &[&str] = &[
    "list",
    "column",
    "no-column",
    "ignore-case",
    "color",
    "omit-empty",
];

/// `git branch` / `git tag` in listing mode: only listing options (exact names: `long` and
/// [`LIST_WITH_VALUE`]), and names only as patterns after `-l`/`--list` (without it, a name
/// creates a branch or tag).
fn listing(sub: &str, rest: &[Arg], short: &str, long: &[&str]) -> Result<(), Deny> {
    let mut list_mode = false;
    let mut names = Vec::new();
    let mut takes_value = false;
    for arg in rest {
        let value = arg.require_static(NAME)?;
        if let Some(option) = value.strip_prefix("--") {
            let (name, inline) = option.split_once('=').map_or((option, false), |(n, _)| (n, true));
            let with_value = LIST_WITH_VALUE.contains(&name);
            if !with_value && !long.contains(&name) {
                return Err(not_listing(sub, value));
            }
            list_mode |= name == "list";
            takes_value = !inline && with_value;
        } else if value.len() > 1 && value.starts_with('-') {
            if !value[1..].chars().all(|c| short.contains(c)) {
                return Err(not_listing(sub, value));
            }
            list_mode |= value.contains('l');
        } else if !std::mem::take(&mut takes_value) {
            names.push(arg);
        }
    }
    match names.first() {
        Some(name) if !list_mode => Err(Deny::at(
            &name.raw,
            format!(
                "`git {sub} {}` creates a {sub} (only listing is allowed)",
                name.raw
            ),
        )),
        _ => Ok(()),
    }
}

fn not_listing(sub: &str, option: &str) -> Deny {
    options::refused(&format!("{NAME} {sub}"), option, "is not a listing option")
}

/// `git config` reading values: a read action is required and only reading options are allowed.
fn config(rest: &[Arg]) -> Result<(), Deny> {
    const READ_ACTIONS: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
    ];
    const READ_FLAGS: &[&str] = &[
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--show-origin",
        "--show-scope",
        "--null",
        "-z",
        "--name-only",
        "--includes",
        "--no-includes",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--all",
        "--regexp",
        "--show-names",
    ];
    const WITH_VALUE: &[&str] = &[
        "--file",
        "-f",
        "--blob",
        "--type",
        "--default",
        "--value",
        "--url",
    ];
    let mut reading = false;
    let mut positionals = 0usize;
    let mut first: Option<&str> = None;
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        let value = arg.require_static(NAME)?;
        let inline_value = value
            .split_once('=')
            .is_some_and(|(o, _)| WITH_VALUE.contains(&o));
        if READ_ACTIONS.contains(&value) {
            reading = true;
        } else if WITH_VALUE.contains(&value) {
            i += 1;
        } else if value.starts_with('-') && !READ_FLAGS.contains(&value) && !inline_value {
            return Err(options::refused("git config", value, "is not a reading option"));
        } else if !value.starts_with('-') {
            reading |= positionals == 0 && matches!(value, "get" | "list");
            first.get_or_insert(value);
            positionals += 1;
        }
        i += 1;
    }
    // `git config NAME` alone prints the value (`git config edit` opens an editor).
    reading |= positionals == 1
        && first
            .is_some_and(|f| !matches!(f, "set" | "unset" | "rename-section" | "remove-section" | "edit"));
    if reading {
        Ok(())
    } else {
        Err(Deny::at(
            "git config",
            "`git config` without `--get`/`--list` (or `get`/`list`) can change configuration",
        ))
    }
}

/// `git remote`, `git remote -v`, `git remote show|get-url NAME`.
fn remote(rest: &[Arg]) -> Result<(), Deny> {
    let values = rest
        .iter()
        .map(|a| a.require_static(NAME))
        .collect::<Result<Vec<_>, _>>()?;
    let allowed = match values.as_slice() {
        [] | ["-v" | "--verbose"] => true,
        // `show` contacts the remote unless `-n`.
        ["show", more @ ..] => more.contains(&"-n") && more.iter().all(|v| !v.starts_with('-') || *v == "-n"),
        ["get-url", more @ ..] => more
            .iter()
            .all(|v| !v.starts_with('-') || matches!(*v, "--push" | "--all")),
        _ => false,
    };
    if allowed {
        Ok(())
    } else {
        Err(Deny::at(
            "git remote",
            "`git remote` can change remotes or contact them (only listing, `show -n` and `get-url` are allowed)",
        ))
    }
}
