//! `qr completions` and `qr man`: shell completions and manual pages generated from the clap definitions.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::cli::Cli;

/// `qr completions`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  qr completions bash > /etc/bash_completion.d/qr
  qr completions zsh > \"${fpath[1]}/_qr\"
  qr completions fish > ~/.config/fish/completions/qr.fish")]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    shell: Shell,
}

/// `qr man`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  qr man | man -l -
  qr man --out-dir /usr/local/share/man/man1")]
pub struct ManArgs {
    /// Write qr.1 and one page per subcommand (qr-generate.1, qr-keys-create.1, ...) into this
    /// directory instead of printing qr.1 on standard output.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// Runs `qr completions`.
pub fn completions(args: CompletionsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut command = Cli::command();
    // The generators panic on write errors, so they write to memory and a closed pipe stays an
    // ordinary error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "qr", &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// Runs `qr man`.
pub fn man(args: ManArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let command = Cli::command();
    match args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("cannot write the manual pages into {}", dir.display()))?;
            Ok(())
        }
        None => {
            clap_mangen::Man::new(command).render(out)?;
            out.flush()?;
            Ok(())
        }
    }
}
