//! `idmint completions SHELL` and `idmint man`: shell completion scripts and the manual page,
//! generated from the command definitions themselves, so they never fall behind a flag.

use std::io::Write;

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

use crate::error::CliResult;

/// Arguments of `idmint completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: ShellName,
}

/// The shells `clap_complete` writes for.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ShellName {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

impl From<ShellName> for Shell {
    fn from(s: ShellName) -> Shell {
        match s {
            ShellName::Bash => Shell::Bash,
            ShellName::Zsh => Shell::Zsh,
            ShellName::Fish => Shell::Fish,
            ShellName::Elvish => Shell::Elvish,
            ShellName::Powershell => Shell::PowerShell,
        }
    }
}

/// Writes the completion script for `args.shell`.
pub fn run_completions<C: CommandFactory>(
    args: &CompletionsArgs,
    out: &mut dyn Write,
) -> CliResult {
    let mut cmd = C::command();
    clap_complete::generate(Shell::from(args.shell), &mut cmd, "idmint", out);
    Ok(())
}

/// Writes the manual page (roff) of `idmint` with a section per subcommand.
pub fn run_man<C: CommandFactory>(out: &mut dyn Write) -> CliResult {
    let cmd = C::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        writeln!(out, ".SH \"IDMINT {}\"", sub.get_name().to_uppercase())?;
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            writeln!(out, "{}", roff_escape(&about.to_string()))?;
        }
        let sub_man =
            clap_mangen::Man::new(sub.clone().bin_name(format!("idmint {}", sub.get_name())));
        sub_man.render_synopsis_section(out)?;
        sub_man.render_options_section(out)?;
    }
    if let Some(after) = cmd.get_after_help() {
        writeln!(out, ".SH NOTES")?;
        writeln!(out, "{}", roff_escape(&after.to_string()))?;
    }
    man.render_version_section(out)?;
    Ok(())
}

/// Text as roff reads it literally: backslashes doubled, and a leading `.` or `'` (a roff
/// request) guarded.
fn roff_escape(s: &str) -> String {
    s.lines()
        .map(|l| {
            let l = l.replace('\\', "\\e");
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
