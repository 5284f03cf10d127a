//! The `glaneur` binary: parse flags, run, print the error once, choose the exit code.

use std::process::ExitCode;

use clap::Parser;
use glaneur::cli::{Cli, Command, RunArgs, SeedsCommand};
use glaneur::commands::run::{Ending, RunOptions};

fn print_ok(text: String) -> ExitCode {
    use std::io::Write;
    // `print!` panics when the reader went away (`glaneur … | head`); that is not an error.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    ExitCode::SUCCESS
}

/// Whether the error is only that the reader of our output went away (`| head`).
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

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
    let result = match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(RunArgs {
            store: Some(store),
            topic,
            out,
            from,
            to,
            proxy,
            replay,
            quiet,
            revisit,
            virtual_clock,
        }) => {
            let alone = from == glaneur::commands::run::Stage::Seeds
                && to.is_none()
                && replay.is_none()
                && !revisit
                && virtual_clock.is_none();
            if alone {
                glaneur::commands::workers::run_alone(topic, out, store, proxy, quiet).map(
                    |ending| match ending {
                        Ending::Corpus | Ending::Stopped => ExitCode::SUCCESS,
                        Ending::Empty => ExitCode::from(1),
                        Ending::Interrupted => ExitCode::from(130),
                    },
                )
            } else {
                Err(anyhow::anyhow!(
                    "--store runs the whole pipeline on a shared frontier: it goes with none of \
                     --from, --to, --replay, --revisit, --virtual-clock (after the crawl, \
                     `glaneur run TOPIC --out RUN --from extract` works on the collected folder)"
                ))
            }
        }
        Command::Run(args) => glaneur::commands::run::run(&RunOptions {
            topic: args.topic,
            out: args.out,
            from: args.from,
            to: args.to.unwrap_or(glaneur::commands::run::Stage::Export),
            proxy: args.proxy,
            replay: args.replay,
            quiet: args.quiet,
            revisit: args.revisit,
            virtual_clock: args.virtual_clock,
        })
        .map(|ending| match ending {
            Ending::Corpus | Ending::Stopped => ExitCode::SUCCESS,
            Ending::Empty => ExitCode::from(1),
            Ending::Interrupted => ExitCode::from(130),
        }),
        Command::Monitor(args) => {
            glaneur::commands::monitor::monitor(&glaneur::commands::monitor::MonitorOptions {
                topic: args.topic,
                out: args.out,
                duration: args.duration,
                policy: args.policy,
                interval: args.interval,
                min_interval: args.min_interval,
                max_interval: args.max_interval,
                proxy: args.proxy,
                virtual_clock: args.virtual_clock,
                visits: args.visits,
                refresh: !args.no_refresh,
                quiet: args.quiet,
            })
            .map(|ending| match ending {
                glaneur::commands::monitor::Ending::Done => ExitCode::SUCCESS,
                glaneur::commands::monitor::Ending::Interrupted => ExitCode::from(130),
            })
        }
        Command::Worker(args) => {
            glaneur::commands::workers::worker(&glaneur::commands::workers::WorkerOptions {
                topic: args.topic,
                out: args.out,
                store: args.store,
                crawl: args.crawl,
                name: args.name,
                lease_seconds: args.lease_seconds,
                proxy: args.proxy,
                quiet: args.quiet,
            })
            .map(|ending| match ending {
                Ending::Corpus | Ending::Stopped | Ending::Empty => ExitCode::SUCCESS,
                Ending::Interrupted => ExitCode::from(130),
            })
        }
        Command::Collect { run, topic, quiet } => {
            glaneur::commands::workers::collect(&run, topic.as_deref(), quiet).map(|ending| {
                match ending {
                    Ending::Corpus | Ending::Stopped => ExitCode::SUCCESS,
                    Ending::Empty => ExitCode::from(1),
                    Ending::Interrupted => ExitCode::from(130),
                }
            })
        }
        Command::Check { topic } => glaneur::commands::check::check(topic.as_deref()).map(print_ok),
        Command::Formula {
            expression,
            files,
            case_sensitive,
            keep_diacritics,
        } => glaneur::commands::inspect::formula(
            &expression,
            &files,
            stages::focus::formula::FormulaOptions {
                case_sensitive,
                keep_diacritics,
            },
        )
        .map(print_ok),
        Command::Extract {
            files,
            url,
            content_type,
            drop_comments,
            text,
        } => {
            let options = stages::page::extract::ExtractOptions {
                drop_comments,
                ..Default::default()
            };
            match files.as_slice() {
                _ if text => glaneur::commands::inspect::extract_text(
                    &files,
                    url.as_deref(),
                    content_type.as_deref(),
                    &options,
                )
                .map(print_ok),
                [file] => glaneur::commands::inspect::extract(
                    file,
                    url.as_deref(),
                    content_type.as_deref(),
                    &options,
                )
                .map(print_ok),
                _ => glaneur::commands::inspect::extract_lines(
                    &files,
                    url.as_deref(),
                    content_type.as_deref(),
                    &options,
                    &mut std::io::stdout().lock(),
                )
                .map(|()| ExitCode::SUCCESS),
            }
        }
        Command::Seeds(SeedsCommand::Import { files, engine }) => glaneur::seeds::import(
            &files,
            engine,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|hits| {
            if hits == 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }),
        Command::Verify { run, refetch } => {
            glaneur::commands::verify::verify(&run, refetch).map(|verdict| {
                let code = if verdict.settled() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                };
                print_ok(verdict.text);
                code
            })
        }
        Command::Tokenize { lang, file } => {
            glaneur::commands::inspect::tokenize(file.as_deref(), &lang).map(print_ok)
        }
        Command::Index { vrt, out, columns } => {
            glaneur::explore::index(&vrt, &out, columns.as_deref()).map(print_ok)
        }
        Command::Search {
            run,
            query,
            limit,
            host,
            lang,
            json,
        } => glaneur::explore::search_documents(
            &run,
            &query,
            limit,
            host.as_deref(),
            lang.as_deref(),
            json,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Kwic(args) => glaneur::explore::kwic(
            &args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Freq(args) => glaneur::explore::freq(
            &args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Colloc(args) => glaneur::explore::colloc(
            &args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Keywords(args) => glaneur::explore::keywords(
            &args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Batch(args) => {
            let options = glaneur::commands::batch::BatchOptions {
                topics: args.topics,
                out: args.out.clone(),
                runs: args.runs,
                proxy: args.proxy,
                cache_bytes: args.cache_mb.saturating_mul(1 << 20),
                compare: args.comparison.options(Vec::new(), args.out),
            };
            glaneur::commands::batch::batch(&options).map(|(report, worst)| {
                print!("{}", glaneur::commands::batch::summary(&report));
                match worst {
                    Some(Ending::Corpus | Ending::Stopped) => ExitCode::SUCCESS,
                    Some(Ending::Empty) => ExitCode::from(1),
                    Some(Ending::Interrupted) => ExitCode::from(130),
                    None => ExitCode::from(2),
                }
            })
        }
        Command::Compare(args) => {
            let options = args.comparison.options(args.runs, args.out);
            glaneur::commands::compare::compare(&options).map(|c| {
                print!("{}", glaneur::commands::compare::summary(&c, &options.out));
                ExitCode::SUCCESS
            })
        }
        Command::Serve {
            dir,
            port,
            bind,
            proxy,
            allow_hosts,
        } => glaneur::serve::serve(&glaneur::serve::ServeOptions {
            corpora: dir,
            bind,
            port,
            proxy,
            allow_hosts,
        })
        .map(|()| ExitCode::SUCCESS),
        Command::Init { dir } => glaneur::topic::template::init(&dir).map(|path| {
            print_ok(format!(
                "wrote {}: edit it, then `glaneur check {}` and `glaneur run {}`\n",
                path.display(),
                dir.display(),
                dir.display()
            ))
        }),
    };
    match result {
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
