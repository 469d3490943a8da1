//! The allow-list: which programs may run, and with which options and operands.
//!
//! A program is looked up by its bare name (never a path). Anything not listed is not read-only;
//! well-known writers and code runners get a reason that says what they do.

use super::options::{self, OptSpec};
use super::words::Arg;
use super::{Deny, awk, git, sed};

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
const TEMP: &str = "writes temporary files where it points";

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
            &[('o', WRITES), ('T', TEMP)],
            &[
                ("output", WRITES),
                ("temporary-directory", TEMP),
                ("compress-program", RUNS),
            ],
        ),
        "shuf" => opts(&[('o', WRITES)], &[("output", WRITES)]),
        "tree" => opts(
            &[('o', WRITES), ('R', "writes 00Tree.html files")],
            &[("output", WRITES)],
        ),
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
        "env" | "timeout" | "nice" | "time" | "command" => Policy::Any,
        "uniq" => Policy::Custom(uniq),
        "date" => Policy::Custom(date),
        "find" => Policy::Custom(find),
        "sed" => Policy::Custom(sed::check),
        "awk" | "gawk" | "mawk" | "nawk" => Policy::Custom(awk::check),
        "xxd" => Policy::Custom(xxd),
        "hostname" => Policy::Custom(hostname),
        "git" => Policy::Custom(git::check),
        "dd" => Policy::Custom(dd),
        "python" | "python3" => Policy::Custom(|p, a| version_only(p, a, &["--version", "-V"])),
        "node" => Policy::Custom(|p, a| version_only(p, a, &["--version", "-v"])),
        "cargo" | "rustc" | "rustup" | "pip" | "pip3" | "npm" | "uv" | "make" | "gcc" | "cc" => {
            Policy::Custom(|p, a| version_only(p, a, &["--version", "-V"]))
        }
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

/// Wrappers that run another command: `env`, `timeout`, `nice`, `time`, `command`. Returns the
/// wrapped command's words, or `None` when `name` is not a wrapper or runs nothing (`env` alone
/// prints the environment, `command -v` looks a name up).
///
/// Each wrapper's options are read with its real grammar ([`WrapperOptions`]): which options take
/// a value (attached, clustered or in the next word), `--`, abbreviated long options. An option
/// it does not know is refused, so an option's value is never taken for the wrapped command.
fn wrapper<'a>(name: &str, args: &'a [Arg]) -> Result<Option<&'a [Arg]>, Deny> {
    let spec = match name {
        "env" => &ENV,
        "timeout" => &TIMEOUT,
        "nice" => &NICE,
        "time" => &TIME,
        "command" => &COMMAND,
        _ => return Ok(None),
    };
    let mut skip = spec.skip(name, args)?;
    match name {
        "env" => {
            while let Some(arg) = args.get(skip) {
                match arg.require_static(name)?.split_once('=') {
                    Some((var, _)) => check_assignment(var, &arg.raw)?,
                    None => break,
                }
                skip += 1;
            }
        }
        "timeout" => {
            let duration = args
                .get(skip)
                .ok_or_else(|| Deny::at(name, "`timeout` without a duration is not analysed"))?;
            let value = duration.require_static(name)?;
            let number = value.strip_suffix(['s', 'm', 'h', 'd']).unwrap_or(value);
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                return Err(Deny::at(
                    &duration.raw,
                    format!(
                        "`timeout {}`: the duration must be a number (with s, m, h or d)",
                        duration.raw
                    ),
                ));
            }
            skip += 1;
        }
        // `command -v NAME` / `-V NAME` only looks the name up.
        "command"
            if args[..skip]
                .iter()
                .any(|a| a.value.as_deref().is_some_and(|v| v.contains(['v', 'V']))) =>
        {
            return Ok(None);
        }
        _ => {}
    }
    Ok(args.get(skip..).filter(|rest| !rest.is_empty()))
}

/// A wrapper's option grammar: everything it accepts before the command it runs.
struct WrapperOptions {
    /// Short options without a value.
    short_flags: &'static str,
    /// Short options that take a value (the rest of the word, or the next word).
    short_values: &'static str,
    /// Long options without a value (an optional `=VALUE` is accepted).
    long_flags: &'static [&'static str],
    /// Long options that take a value (`--name=VALUE` or `--name VALUE`).
    long_values: &'static [&'static str],
    /// Whether `-N` (a number, as in `nice -10`) is an option.
    numeric: bool,
}

/// GNU env: `-S`/`--split-string` (a string split into a command) is not accepted.
const ENV: WrapperOptions = WrapperOptions {
    short_flags: "i0v",
    short_values: "uC",
    long_flags: &[
        "ignore-environment",
        "null",
        "debug",
        "default-signal",
        "ignore-signal",
        "block-signal",
    ],
    long_values: &["unset", "chdir"],
    numeric: false,
};

/// GNU timeout.
const TIMEOUT: WrapperOptions = WrapperOptions {
    short_flags: "v",
    short_values: "sk",
    long_flags: &["verbose", "preserve-status", "foreground"],
    long_values: &["signal", "kill-after"],
    numeric: false,
};

/// GNU nice.
const NICE: WrapperOptions = WrapperOptions {
    short_flags: "",
    short_values: "n",
    long_flags: &[],
    long_values: &["adjustment"],
    numeric: true,
};

/// `time`: bash's keyword takes only `-p`, so that is all either reading accepts (GNU `time`,
/// which dash runs, writes a file with `-o` and takes a format with `-f`).
const TIME: WrapperOptions = WrapperOptions {
    short_flags: "p",
    short_values: "",
    long_flags: &[],
    long_values: &[],
    numeric: false,
};

/// `command [-p] cmd...` runs `cmd` (bypassing functions); `command -v|-V name` looks it up.
const COMMAND: WrapperOptions = WrapperOptions {
    short_flags: "pvV",
    short_values: "",
    long_flags: &[],
    long_values: &[],
    numeric: false,
};

impl WrapperOptions {
    /// How many leading words of `args` are options (with their values), refusing unknown ones.
    fn skip(&self, program: &str, args: &[Arg]) -> Result<usize, Deny> {
        let unknown = |word: &str| {
            options::refused(
                program,
                word,
                &format!("is not an option `{program}` is known to accept"),
            )
        };
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let word = arg.require_static(program)?;
            if word == "--" {
                return Ok(i + 1);
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            i += 1;
            let takes_value = if let Some(long) = word.strip_prefix("--") {
                let (name, inline) = long.split_once('=').map_or((long, false), |(n, _)| (n, true));
                let known: Vec<&str> = self.long_flags.iter().chain(self.long_values).copied().collect();
                let full = options::resolve_long(name, &known).ok_or_else(|| unknown(word))?;
                self.long_values.contains(&full) && !inline
            } else {
                self.short_cluster(&word[1..]).ok_or_else(|| unknown(word))?
            };
            if takes_value {
                args.get(i)
                    .ok_or_else(|| unknown(word))?
                    .require_static(program)?;
                i += 1;
            }
        }
        Ok(i)
    }

    /// Reads a short option cluster; `Some(true)` when its value is the next word, `None` when
    /// it holds an unknown option.
    fn short_cluster(&self, cluster: &str) -> Option<bool> {
        if self.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
            return Some(false);
        }
        for (at, c) in cluster.char_indices() {
            if self.short_values.contains(c) {
                return Some(at + c.len_utf8() == cluster.len());
            }
            if !self.short_flags.contains(c) {
                return None;
            }
        }
        Some(false)
    }
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
    one_input(name, &options::operands(name, args, &spec)?)
}

/// For programs that write their second operand (`uniq`, `xxd`): at most one, and not a
/// pattern that may expand to two.
fn one_input(name: &str, operands: &[&Arg]) -> Result<(), Deny> {
    if let Some(output) = operands.get(1) {
        return Err(Deny::at(
            &output.raw,
            format!("`{name}` writes its second operand `{}`", output.raw),
        ));
    }
    match operands.first() {
        Some(input) if input.value.is_none() => Err(Deny::at(
            &input.raw,
            format!(
                "`{name} {}` may expand to two operands, and `{name}` writes its second",
                input.raw
            ),
        )),
        _ => Ok(()),
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

/// `find` without the actions that delete files, write files or ask before running commands;
/// `-exec` and `-execdir` are allowed when the command they run is read-only itself.
fn find(name: &str, args: &[Arg]) -> Result<(), Deny> {
    const ACTIONS: &[(&str, &str)] = &[
        ("-ok", RUNS),
        ("-okdir", RUNS),
        ("-delete", "deletes files"),
        ("-fprint", WRITES),
        ("-fprint0", WRITES),
        ("-fprintf", WRITES),
        ("-fls", WRITES),
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let value = arg.require_static(name)?;
        i += 1;
        if matches!(value, "-exec" | "-execdir") {
            i += find_exec(value, &args[i..])?;
        } else if let Some((action, why)) = ACTIONS.iter().find(|(a, _)| *a == value) {
            return Err(options::refused(name, action, why));
        }
    }
    Ok(())
}

/// Checks the command of `find -exec` (`action`) in `rest`, up to its `;` or `{} +`; returns
/// how many words it took. Each `{}` word becomes `./{}`: a found path, never an option, and
/// never a command name (it has a slash); a word with `{}` inside it is known only at run time.
fn find_exec(action: &str, rest: &[Arg]) -> Result<usize, Deny> {
    let ends = |j: usize| match rest[j].value.as_deref() {
        Some(";") => true,
        Some("+") => j > 0 && rest[j - 1].value.as_deref() == Some("{}"),
        _ => false,
    };
    let end = (0..rest.len())
        .find(|&j| ends(j))
        .ok_or_else(|| options::refused("find", action, "has no terminating `;` or `{} +`"))?;
    let inner: Vec<Arg> = rest[..end]
        .iter()
        .map(|arg| match arg.value.as_deref() {
            Some("{}") => Arg {
                raw: arg.raw.clone(),
                value: Some("./{}".to_owned()),
                runtime: None,
                path_glob: false,
            },
            Some(v) if v.contains("{}") => Arg {
                raw: arg.raw.clone(),
                value: None,
                runtime: Some("`find` puts the path in it"),
                path_glob: false,
            },
            _ => arg.clone(),
        })
        .collect();
    if inner.is_empty() {
        return Err(options::refused("find", action, "has no command"));
    }
    check(&inner).map_err(|deny| deny.within(&format!("find {action}")))?;
    Ok(end + 1)
}

/// `xxd` dumping to standard output: its second operand is an output file.
fn xxd(name: &str, args: &[Arg]) -> Result<(), Deny> {
    let spec = OptSpec {
        value_short: "cglosn",
        value_long: &["cols", "groupsize", "len", "seek", "name"],
        ..OptSpec::NONE
    };
    one_input(name, &options::operands(name, args, &spec)?)
}

/// `hostname` printing names; an operand (or `-F`/`--file`) sets the host name.
fn hostname(_name: &str, args: &[Arg]) -> Result<(), Deny> {
    const PRINTING: &[&str] = &[
        "-s",
        "--short",
        "-f",
        "--fqdn",
        "--long",
        "-i",
        "--ip-address",
        "-I",
        "--all-ip-addresses",
        "-d",
        "--domain",
        "-A",
        "--all-fqdns",
        "-a",
        "--alias",
    ];
    match args
        .iter()
        .find(|a| a.value.as_deref().is_none_or(|v| !PRINTING.contains(&v)))
    {
        Some(arg) => Err(Deny::at(
            &arg.raw,
            format!(
                "`hostname {}` can set the host name (only printing options are allowed)",
                arg.raw
            ),
        )),
        None => Ok(()),
    }
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

/// An interpreter or build tool asked only for its version.
fn version_only(name: &str, args: &[Arg], flags: &[&str]) -> Result<(), Deny> {
    match args {
        [only] if only.value.as_deref().is_some_and(|v| flags.contains(&v)) => Ok(()),
        _ => Err(Deny::at(
            name,
            format!("{} (only `{name} {}` is allowed)", not_allowed(name), flags[0]),
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
