//! The `glaneur` binary: parse flags, dispatch (`cli::dispatch`), print the error once,
//! choose the exit code.

use std::process::ExitCode;

use clap::Parser;
use glaneur::cli::{Cli, Command, RunArgs};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A connection string's password is hidden wherever it would be printed, malformed or not.
    match &cli.command {
        Some(Command::Run(RunArgs {
            store: Some(store), ..
        })) => glaneur::ground::secrets::remember(store),
        Some(Command::Worker(args)) => glaneur::ground::secrets::remember(&args.store),
        _ => {}
    }
    // Colours only for a person at a terminal (and never with NO_COLOR set): a log file or a
    // pipe gets plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GLANEUR_LOG").unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("warn,html5ever=off,selectors=off")
            }),
        )
        .init();
    let command = cli.command.unwrap_or(Command::Run(RunArgs::default()));
    match glaneur::cli::dispatch::dispatch(command) {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            // A connection string may be quoted anywhere in the chain: never its password.
            eprintln!(
                "glaneur: error: {}",
                glaneur::ground::secrets::redact(&format!("{error:#}"))
            );
            ExitCode::from(2)
        }
    }
}

/// Whether the error is only that the reader of our output went away (`| head`).
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
