//! `git`: only subcommands that read the repository, with global options that cannot inject
//! configuration (`-c alias.x=!sh`, `--config-env`, `--exec-path`) and without options that write
//! (`--output`) or run programs (`grep -O`, `--ext-diff`).

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

/// Options refused on every read-only subcommand.
const READ_SPEC: OptSpec = OptSpec {
    deny_short: &[('O', "opens matching files in a pager command")],
    deny_long: &[
        ("output", "writes a file"),
        ("open-files-in-pager", "runs a command"),
        ("ext-diff", "runs an external diff program"),
        (
            "help",
            "opens the manual with a pager or browser command from configuration",
        ),
    ],
    ..OptSpec::NONE
};

/// Checks a `git` command line (the words after `git`).
pub(crate) fn check(_name: &str, args: &[Arg]) -> Result<(), Deny> {
    let Some(start) = global_options(args)? else {
        return Ok(());
    };
    let Some((sub_word, rest)) = args[start..].split_first() else {
        return Err(Deny::at(NAME, "`git` without a subcommand is not analysed"));
    };
    let sub = sub_word.require_static(NAME)?;
    let refuse = |why: &str| Err(Deny::at(format!("git {sub}"), format!("`git {sub}` {why}")));
    if READ_ONLY.contains(&sub) {
        return read_options(sub, rest);
    }
    match sub {
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
            if reading {
                read_options(sub, rest)
            } else {
                refuse("changes the repository (only listing and showing are allowed)")
            }
        }
        _ => refuse("is not a read-only git command (it can change the repository or run commands)"),
    }
}

/// Skips the allowed global options and returns where the subcommand starts, or `None` for a
/// complete `git --version`; refuses every other global option.
fn global_options(args: &[Arg]) -> Result<Option<usize>, Deny> {
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
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let value = arg.require_static(NAME)?;
        if !value.starts_with('-') {
            break;
        }
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
    Ok(Some(i))
}

/// `git --version` must be the whole command: anything after it is not analysed.
fn version_only(args: &[Arg], at: usize) -> Result<Option<usize>, Deny> {
    match args.get(at + 1) {
        None => Ok(None),
        Some(extra) => Err(Deny::at(
            &extra.raw,
            format!("`git --version {}` is not analysed", extra.raw),
        )),
    }
}

fn read_options(sub: &str, rest: &[Arg]) -> Result<(), Deny> {
    options::operands(&format!("{NAME} {sub}"), rest, &READ_SPEC).map(drop)
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
            positionals += 1;
        }
        i += 1;
    }
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
        ["show" | "get-url", more @ ..] => more
            .iter()
            .all(|v| !v.starts_with('-') || matches!(*v, "-n" | "--push" | "--all")),
        _ => false,
    };
    if allowed {
        Ok(())
    } else {
        Err(Deny::at(
            "git remote",
            "`git remote` can change remotes (only listing, `show` and `get-url` are allowed)",
        ))
    }
}
