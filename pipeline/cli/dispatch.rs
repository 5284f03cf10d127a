//! From a parsed command to its work and its exit code.
//!
//! **In:** a [`Command`] (`main.rs` parses the flags). **Out:** the command run, its output
//! printed, the exit code it ends with (documented in `glaneur --help`).
//!
//! **Invariants:** every command's ending maps to one exit code here and nowhere else: 0 done,
//! 1 done with nothing to show (an empty corpus, no result, a run folder not sound), 2 an error
//! (printed once by `main.rs`), 130 interrupted.

use std::process::ExitCode;

use super::{Command, RunArgs, SeedsArgs, SeedsCommand};
use crate::commands::run::{Ending, RunOptions, Stage};

/// Runs `command`; returns the exit code of its ending.
pub fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(args) => run(args),
        Command::Monitor(args) => {
            crate::commands::monitor::monitor(&crate::commands::monitor::MonitorOptions {
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
                crate::commands::monitor::Ending::Done => ExitCode::SUCCESS,
                crate::commands::monitor::Ending::Interrupted => ExitCode::from(130),
            })
        }
        Command::Worker(args) => {
            crate::commands::workers::worker(&crate::commands::workers::WorkerOptions {
                topic: args.topic,
                out: args.out,
                store: args.store,
                crawl: args.crawl,
                name: args.name,
                lease_seconds: args.lease_seconds,
                proxy: args.proxy,
                quiet: args.quiet,
                extract: !args.no_extract,
            })
            .map(|ending| match ending {
                // A worker's share may be empty: the corpus is collected from them all.
                Ending::Empty => ExitCode::SUCCESS,
                ending => code_of(ending),
            })
        }
        Command::Collect { run, topic, quiet } => {
            crate::commands::workers::collect(&run, topic.as_deref(), quiet).map(code_of)
        }
        Command::Check { topic } => crate::commands::check::check(topic.as_deref()).map(print_ok),
        Command::Seeds(args) => seeds(args),
        Command::Verify { run, refetch } => {
            crate::commands::verify::verify(&run, refetch).map(|verdict| {
                let code = if verdict.settled() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                };
                print_ok(verdict.text);
                code
            })
        }
        Command::Batch(args) => {
            let options = crate::commands::batch::BatchOptions {
                topics: args.topics,
                out: args.out.clone(),
                runs: args.runs,
                proxy: args.proxy,
                cache_bytes: args.cache_mb.saturating_mul(1 << 20),
                compare: args.comparison.options(Vec::new(), args.out),
            };
            crate::commands::batch::batch(&options).map(|(report, worst)| {
                print!("{}", crate::commands::batch::summary(&report));
                // An error in one of the topics is the batch's worst ending.
                worst.map_or(ExitCode::from(2), code_of)
            })
        }
        Command::Compare(args) => {
            let options = args.comparison.options(args.runs, args.out);
            crate::commands::compare::compare(&options).map(|c| {
                print!("{}", crate::commands::compare::summary(&c, &options.out));
                ExitCode::SUCCESS
            })
        }
        command => tools(command),
    }
}

/// `glaneur run`, alone or (with `--store`) as the only worker of a shared crawl.
fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let Some(store) = args.store else {
        return crate::commands::run::run(&RunOptions {
            topic: args.topic,
            out: args.out,
            from: args.from,
            to: args.to.unwrap_or(Stage::Parse),
            proxy: args.proxy,
            replay: args.replay,
            quiet: args.quiet,
            revisit: args.revisit,
            virtual_clock: args.virtual_clock,
        })
        .map(code_of);
    };
    let alone = args.from == Stage::Seeds
        && args.to.is_none()
        && args.replay.is_none()
        && !args.revisit
        && args.virtual_clock.is_none();
    if !alone {
        anyhow::bail!(
            "--store runs the whole pipeline on a shared frontier: it goes with none of --from, \
             --to, --replay, --revisit, --virtual-clock (after the crawl, `glaneur run TOPIC \
             --out RUN --from extract` works on the collected folder)"
        );
    }
    crate::commands::workers::run_alone(args.topic, args.out, store, args.proxy, args.quiet)
        .map(code_of)
}

/// `glaneur seeds import FILE…` (0: a result printed), or the review of a topic's seeds (0: a
/// seed to crawl).
fn seeds(args: SeedsArgs) -> anyhow::Result<ExitCode> {
    let code = |found: bool| {
        if found {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }
    };
    match (args.command, args.topic) {
        (Some(SeedsCommand::Import { files, engine }), _) => crate::seeds::import(
            &files,
            engine,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .map(|hits| code(hits > 0)),
        (None, Some(topic)) => {
            crate::commands::seeds::review(&crate::commands::seeds::ReviewOptions {
                topic,
                out: args.out,
                proxy: args.proxy,
                fetch: args.fetch,
                quiet: args.quiet,
            })
            .map(code)
        }
        (None, None) => anyhow::bail!("glaneur seeds: give a topic, or `import FILE…`"),
    }
}

/// The commands that read files and print: inspection, the corpus's queries, the server, a
/// new topic.
fn tools(command: Command) -> anyhow::Result<ExitCode> {
    // Locked only for the command that writes through them: `serve` prints from other
    // threads, which a lock held here would block.
    let out = || std::io::stdout().lock();
    let done = |()| ExitCode::SUCCESS;
    match command {
        Command::Formula {
            expression,
            files,
            case_sensitive,
            keep_diacritics,
        } => crate::commands::inspect::formula(
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
            let (url, content_type) = (url.as_deref(), content_type.as_deref());
            use crate::commands::inspect;
            match files.as_slice() {
                _ if text => {
                    inspect::extract_text(&files, url, content_type, &options).map(print_ok)
                }
                [file] => inspect::extract(file, url, content_type, &options).map(print_ok),
                _ => inspect::extract_lines(&files, url, content_type, &options, &mut out())
                    .map(done),
            }
        }
        Command::Tokenize { lang, file } => {
            crate::commands::inspect::tokenize(file.as_deref(), &lang).map(print_ok)
        }
        command @ (Command::Index { .. }
        | Command::Search { .. }
        | Command::Kwic(_)
        | Command::Freq(_)
        | Command::Colloc(_)
        | Command::Sketch(_)
        | Command::Subcorpus(_)
        | Command::Keywords(_)) => explorer(command),
        Command::Serve {
            dir,
            port,
            bind,
            proxy,
            allow_hosts,
        } => crate::serve::serve(&crate::serve::ServeOptions {
            corpora: dir,
            bind,
            port,
            proxy,
            allow_hosts,
        })
        .map(done),
        Command::Init { dir } => crate::topic::template::init(&dir).map(|path| {
            print_ok(format!(
                "wrote {}: edit it, then `glaneur check {}` and `glaneur run {}`\n",
                path.display(),
                dir.display(),
                dir.display()
            ))
        }),
        command => unreachable!("{command:?} is dispatched by `dispatch`"),
    }
}

/// The exit code of a run's ending.
fn code_of(ending: Ending) -> ExitCode {
    match ending {
        Ending::Corpus | Ending::Stopped => ExitCode::SUCCESS,
        Ending::Empty => ExitCode::from(1),
        Ending::Interrupted => ExitCode::from(130),
    }
}

/// Prints a command's text; success.
fn print_ok(text: String) -> ExitCode {
    use std::io::Write;
    // `print!` panics when the reader went away (`glaneur … | head`); that is not an error.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    ExitCode::SUCCESS
}

/// The corpus explorer's commands.
fn explorer(command: Command) -> anyhow::Result<ExitCode> {
    let out = || std::io::stdout().lock();
    let err = || std::io::stderr().lock();
    let done = |()| ExitCode::SUCCESS;
    match command {
        Command::Index { vrt, out, columns } => {
            crate::explore::index(&vrt, &out, columns.as_deref()).map(print_ok)
        }
        Command::Search {
            run,
            query,
            limit,
            host,
            lang,
            json,
        } => {
            let (host, lang) = (host.as_deref(), lang.as_deref());
            crate::explore::search_documents(
                &crate::explore::run_of(&run),
                &query,
                limit,
                host,
                lang,
                json,
                &mut out(),
                &mut err(),
            )
            .map(done)
        }
        Command::Kwic(mut args) => {
            args.run = subcorpus(&args.run, args.subcorpus.as_deref())?;
            crate::explore::kwic(&args, &mut out(), &mut err()).map(done)
        }
        Command::Freq(mut args) => {
            args.run = subcorpus(&args.run, args.subcorpus.as_deref())?;
            crate::explore::freq(&args, &mut out(), &mut err()).map(done)
        }
        Command::Colloc(mut args) => {
            args.run = subcorpus(&args.run, args.subcorpus.as_deref())?;
            crate::explore::colloc(&args, &mut out(), &mut err()).map(done)
        }
        Command::Sketch(mut args) => {
            args.run = subcorpus(&args.run, args.subcorpus.as_deref())?;
            crate::explore::sketch(&args, &mut out(), &mut err()).map(done)
        }
        Command::Subcorpus(mut args) => {
            args.run = crate::explore::run_of(&args.run);
            crate::explore::subcorpus(&args, &mut out()).map(done)
        }
        Command::Keywords(mut args) => {
            args.run = subcorpus(&args.run, args.subcorpus.as_deref())?;
            args.reference = crate::explore::run_of(&args.reference);
            crate::explore::keywords(&args, &mut out(), &mut err()).map(done)
        }
        command => unreachable!("{command:?} is dispatched by `tools`"),
    }
}

/// The folder a command reads: the run (a topic folder or file names its `run/`), or its
/// subcorpus `name` (made again when stale).
fn subcorpus(run: &std::path::Path, name: Option<&str>) -> anyhow::Result<std::path::PathBuf> {
    crate::explore::resolve_subcorpus(&crate::explore::run_of(run), name, &mut std::io::stderr())
}
