//! The allow-list: which programs may run, and with which options and operands.
//!
//! A program is looked up by its bare name (never a path). Anything not listed is not read-only;
//! well-known writers and code runners get a reason that says what they do.

use super::options::{self, OptSpec};
use super::words::Arg;
use super::{Deny, git, sed};

/// How the arguments of an allowed program are checked.
enum Policy {
    /// No option or operand can make the program write or run anything.
    Any,
    /// Options are checked against a spec; operands are free.
    Opts(OptSpec),
    /// Arguments are checked by a program-specific function.
    Custom(fn(&str, &[Arg]) -> Result<(), Deny>),
}

const WRITES: &str = "writes a file";
const RUNS: &str = "runs a command";

/// Programs whose every option and operand is read-only.
#[rustfmt::skip]
const ANY_ARGS: &[&str] = &[
    "cat", "ls", "head", "tail", "wc", "echo", "pwd", "true", "false", "basename", "dirname", "realpath",
    "readlink", "stat", "du", "df", "whoami", "id", "uname", "nproc", "arch", "groups", "printenv", "cut",
    "tr", "nl", "paste", "column", "comm", "join", "fold", "fmt", "rev", "tac", "expand", "unexpand", "od",
    "hexdump", "strings", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
    "cksum", "base64", "base32", "diff", "cmp", "grep", "egrep", "fgrep", "jq", "which", "whereis", "type",
    "sleep", "seq", "ps", "free", "uptime", "locale", "tty", "cd", "dircolors", "numfmt", "getconf",
    "lsblk",
];

/// The policy for an allowed program, or `None` when it is not on the allow-list.
fn policy(name: &str) -> Option<Policy> {
    if ANY_ARGS.contains(&name) {
        return Some(Policy::Any);
    }
    let opts = |deny_short, deny_long| {
        Policy::Opts(OptSpec {
            deny_short,
            deny_long,
            ..OptSpec::NONE
        })
    };
    Some(match name {
        "sort" => opts(
            &[('o', WRITES)],
            &[("output", WRITES), ("compress-program", RUNS)],
        ),
        "shuf" => opts(&[('o', WRITES)], &[("output", WRITES)]),
        "tree" => opts(&[('o', WRITES), ('R', "writes 00Tree.html files")], &[]),
        "file" => opts(
            &[('C', "compiles a magic file")],
            &[("compile", "compiles a magic file")],
        ),
        "rg" => opts(&[], &[("pre", RUNS), ("hostname-bin", RUNS)]),
        "fd" | "fdfind" => opts(
            &[('x', RUNS), ('X', RUNS)],
            &[("exec", RUNS), ("exec-batch", RUNS)],
        ),
        "printf" => opts(
            &[('v', "assigns a shell variable (and evaluates subscripts)")],
            &[],
        ),
        "test" | "[" => opts(
            &[
                ('v', "evaluates array subscripts"),
                ('R', "evaluates array subscripts"),
            ],
            &[],
        ),
        // Reached only when the wrapper has no command to run (`env` prints the environment).
        "env" | "timeout" | "nice" | "time" => Policy::Any,
        "uniq" => Policy::Custom(uniq),
        "date" => Policy::Custom(date),
        "find" => Policy::Custom(find),
        "sed" => Policy::Custom(sed::check),
        "git" => Policy::Custom(git::check),
        "dd" => Policy::Custom(dd),
        "command" => Policy::Custom(command_v),
        "python" | "python3" => Policy::Custom(|p, a| version_only(p, a, &["--version", "-V"])),
        "node" => Policy::Custom(|p, a| version_only(p, a, &["--version", "-v"])),
        _ => return None,
    })
}

/// Checks one simple command given as its words (program name first); returns the program name.
pub(crate) fn check(words: &[Arg]) -> Result<String, Deny> {
    let Some((name_word, args)) = words.split_first() else {
        return Err(Deny::whole("empty command"));
    };
    let name = command_name(name_word)?;
    if let Some(wrapped) = wrapper(name, args)? {
        return check(wrapped).map(|inner| format!("{name} {inner}"));
    }
    match policy(name) {
        Some(Policy::Any) => {}
        Some(Policy::Opts(spec)) => {
            options::operands(name, args, &spec)?;
        }
        Some(Policy::Custom(check_args)) => check_args(name, args)?,
        None => return Err(Deny::at(name, not_allowed(name))),
    }
    Ok(name.to_owned())
}

/// The program name: a static bare name (no path, no expansion, no glob).
fn command_name(word: &Arg) -> Result<&str, Deny> {
    let Some(name) = word.value.as_deref() else {
        let why = word.runtime.unwrap_or("expansion");
        return Err(Deny::at(
            &word.raw,
            format!("command name `{}` is only known at run time ({why})", word.raw),
        ));
    };
    if name.contains('/') {
        return Err(Deny::at(
            &word.raw,
            format!(
                "command `{}` is given by path; only bare names on the allow-list are trusted",
                word.raw
            ),
        ));
    }
    Ok(name)
}

/// Wrappers that run another command: `env [NAME=value]... cmd`, `timeout DURATION cmd`,
/// `nice [-n N] cmd`, `time cmd`. Returns the wrapped command's words, or `None` when `name` is
/// not a wrapper or runs nothing (`env` alone prints the environment).
fn wrapper<'a>(name: &str, args: &'a [Arg]) -> Result<Option<&'a [Arg]>, Deny> {
    let skip = match name {
        "env" => {
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                let value = arg.require_static(name)?;
                if value.starts_with('-') {
                    return Err(options::refused(
                        name,
                        value,
                        "is an option of `env` that is not analysed",
                    ));
                }
                match value.split_once('=') {
                    Some((var, _)) => check_assignment(var, &arg.raw)?,
                    None => break,
                }
                i += 1;
            }
            i
        }
        "timeout" => {
            let spec = OptSpec {
                value_short: "sk",
                value_long: &["signal", "kill-after"],
                ..OptSpec::NONE
            };
            let options = leading_options(name, args, &spec)?;
            if let Some(duration) = args.get(options) {
                duration.require_static(name)?;
            }
            options + 1
        }
        "nice" => {
            let spec = OptSpec {
                value_short: "n",
                value_long: &["adjustment"],
                ..OptSpec::NONE
            };
            leading_options(name, args, &spec)?
        }
        "time" => {
            let spec = OptSpec {
                deny_short: &[('o', WRITES)],
                deny_long: &[("output", WRITES)],
                ..OptSpec::NONE
            };
            leading_options(name, args, &spec)?
        }
        _ => return Ok(None),
    };
    Ok(args.get(skip..).filter(|rest| !rest.is_empty()))
}

/// Counts the words of the leading options (with their values) before a wrapper's own operands.
fn leading_options(program: &str, args: &[Arg], spec: &OptSpec) -> Result<usize, Deny> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let value = arg.require_static(program)?;
        if value == "--" {
            return Ok(i + 1);
        }
        if !value.starts_with('-') || value == "-" {
            break;
        }
        i += if options::check_option(program, value, spec)? {
            2
        } else {
            1
        };
    }
    Ok(i)
}

/// Checks `NAME=value` given to an allowed program: only variables that change formatting or
/// locale are safe (others, like `PATH`, `PAGER` or `LD_PRELOAD`, change what actually runs).
pub(crate) fn check_assignment(var: &str, raw: &str) -> Result<(), Deny> {
    const SAFE: &[&str] = &[
        "LANG",
        "LANGUAGE",
        "TZ",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "COLUMNS",
        "LINES",
        "TERM",
        "GREP_COLOR",
        "GREP_COLORS",
    ];
    if SAFE.contains(&var) || var.starts_with("LC_") {
        Ok(())
    } else {
        Err(Deny::at(
            raw,
            format!(
                "assignment `{raw}` can change what the command runs (only locale and colour variables are allowed)"
            ),
        ))
    }
}

fn uniq(name: &str, args: &[Arg]) -> Result<(), Deny> {
    let spec = OptSpec {
        value_short: "fsw",
        value_long: &["skip-fields", "skip-chars", "check-chars"],
        ..OptSpec::NONE
    };
    let operands = options::operands(name, args, &spec)?;
    match operands.get(1) {
        Some(output) => Err(Deny::at(
            &output.raw,
            format!("`uniq` writes its second operand `{}`", output.raw),
        )),
        None => Ok(()),
    }
}

fn date(name: &str, args: &[Arg]) -> Result<(), Deny> {
    let spec = OptSpec {
        deny_short: &[('s', "sets the system clock")],
        deny_long: &[("set", "sets the system clock")],
        value_short: "dfr",
        attached_short: "I",
        value_long: &["date", "file", "reference"],
    };
    for operand in options::operands(name, args, &spec)? {
        if !operand.value.as_deref().is_some_and(|v| v.starts_with('+')) {
            return Err(Deny::at(
                &operand.raw,
                format!("`date {}` sets the system clock", operand.raw),
            ));
        }
    }
    Ok(())
}

/// `find` without the actions that delete files, write files or run commands.
fn find(name: &str, args: &[Arg]) -> Result<(), Deny> {
    const ACTIONS: &[(&str, &str)] = &[
        ("-exec", RUNS),
        ("-execdir", RUNS),
        ("-ok", RUNS),
        ("-okdir", RUNS),
        ("-delete", "deletes files"),
        ("-fprint", WRITES),
        ("-fprint0", WRITES),
        ("-fprintf", WRITES),
        ("-fls", WRITES),
    ];
    for arg in args {
        let value = arg.require_static(name)?;
        if let Some((action, why)) = ACTIONS.iter().find(|(a, _)| *a == value) {
            return Err(options::refused(name, action, why));
        }
    }
    Ok(())
}

/// `dd` reading to standard output: only input-side operands.
fn dd(name: &str, args: &[Arg]) -> Result<(), Deny> {
    const INPUT_SIDE: &[&str] = &["if", "bs", "ibs", "count", "skip", "iseek", "status", "iflag"];
    for arg in args {
        let value = arg.require_static(name)?;
        let key = value.split_once('=').map_or(value, |(k, _)| k);
        if !INPUT_SIDE.contains(&key) {
            let what = if key == "of" {
                "writes a file".to_owned()
            } else {
                format!("`{key}=` is not an input-side operand")
            };
            return Err(options::refused(name, value, &what));
        }
    }
    Ok(())
}

/// `command -v NAME` / `command -V NAME` only look a name up; any other use runs a command.
fn command_v(name: &str, args: &[Arg]) -> Result<(), Deny> {
    let lookup = args
        .first()
        .and_then(|a| a.value.as_deref())
        .is_some_and(|first| {
            first.len() > 1
                && first.starts_with('-')
                && first[1..].chars().all(|c| matches!(c, 'v' | 'V' | 'p'))
                && first.contains(['v', 'V'])
        });
    if lookup {
        Ok(())
    } else {
        Err(Deny::at(
            name,
            "`command` runs another command (only `command -v NAME` is allowed)",
        ))
    }
}

/// An interpreter asked only for its version.
fn version_only(name: &str, args: &[Arg], flags: &[&str]) -> Result<(), Deny> {
    match args {
        [only] if only.value.as_deref().is_some_and(|v| flags.contains(&v)) => Ok(()),
        _ => Err(Deny::at(
            name,
            format!(
                "`{name}` runs arbitrary code (only `{name} {}` is allowed)",
                flags[0]
            ),
        )),
    }
}

/// The reason a program off the allow-list is refused.
fn not_allowed(name: &str) -> String {
    const KNOWN: &[(&[&str], &str)] = &[
        (&["tee"], "writes files"),
        (
            &[
                "rm", "rmdir", "mv", "cp", "ln", "mkdir", "touch", "chmod", "chown", "chgrp", "truncate",
                "shred", "install", "mkfifo", "mknod", "split", "csplit", "patch", "unlink", "link", "rsync",
            ],
            "creates, changes or deletes files",
        ),
        (
            &[
                "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "busybox",
            ],
            "runs arbitrary shell code",
        ),
        (&["eval", "source", "."], "runs a string or file as shell code"),
        (&["exec"], "replaces the shell with another command"),
        (
            &[
                "perl",
                "ruby",
                "php",
                "lua",
                "tclsh",
                "deno",
                "bun",
                "osascript",
                "pwsh",
                "Rscript",
                "julia",
            ],
            "runs arbitrary code",
        ),
        (
            &["awk", "gawk", "mawk", "nawk"],
            "runs awk programs, which can run commands (`system`) and write files",
        ),
        (
            &[
                "xargs", "parallel", "watch", "nohup", "setsid", "chroot", "flock", "unshare", "script",
                "stdbuf", "builtin",
            ],
            "runs other commands",
        ),
        (
            &["sudo", "doas", "su", "pkexec", "runuser"],
            "runs a command as another user",
        ),
        (
            &[
                "apt", "apt-get", "dpkg", "yum", "dnf", "pacman", "apk", "brew", "pip", "pip3", "pipx", "uv",
                "npm", "npx", "yarn", "pnpm", "cargo", "gem", "go", "poetry", "conda", "snap", "make",
                "cmake", "docker",
            ],
            "is a package manager or build tool: it can install software and run scripts",
        ),
        (
            &[
                "curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "telnet", "ftp",
            ],
            "uses the network and can write files",
        ),
        (
            &[
                "vi", "vim", "nvim", "nano", "emacs", "less", "more", "man", "ed", "ex",
            ],
            "is interactive and can run shell commands",
        ),
        (
            &[
                "kill",
                "pkill",
                "killall",
                "reboot",
                "shutdown",
                "halt",
                "systemctl",
                "crontab",
                "at",
            ],
            "changes processes or the system",
        ),
        (
            &[
                "export",
                "unset",
                "alias",
                "unalias",
                "set",
                "shopt",
                "declare",
                "typeset",
                "local",
                "readonly",
                "read",
                "mapfile",
                "readarray",
                "trap",
                "ulimit",
                "umask",
                "hash",
                "enable",
                "let",
                "getopts",
                "pushd",
                "popd",
            ],
            "changes shell state",
        ),
        (
            &[
                "tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "xz", "zstd", "7z",
            ],
            "creates or extracts files",
        ),
    ];
    match KNOWN.iter().find(|(names, _)| names.contains(&name)) {
        Some((_, what)) => format!("`{name}` {what}"),
        None if name.starts_with("python") || name.starts_with("node") => {
            format!("`{name}` runs arbitrary code")
        }
        None => format!("`{name}` is not on the read-only allow-list"),
    }
}
