//! Statements of the shared frontier sent again when PostgreSQL rolls them back to break a
//! deadlock or a serialization conflict with another worker.
//!
//! **In:** a statement to send (a closure giving its future). **Out:** its result.
//!
//! **Invariants:** only a rolled-back statement is sent again (it did nothing, so sending it
//! again is what a worker alone would have done), at most [`DEADLOCK_RETRIES`] times, 40 ms to
//! 640 ms apart; any other error, or the last one, is returned as it came.

use std::time::Duration;

/// How many times a statement PostgreSQL rolled back to break a deadlock is sent again.
const DEADLOCK_RETRIES: u32 = 5;

/// Whether PostgreSQL rolled the statement's transaction back to break a deadlock or a
/// serialization conflict (it can be sent again as it was).
fn is_deadlock(e: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    e.code().is_some_and(|code| {
        *code == SqlState::T_R_DEADLOCK_DETECTED || *code == SqlState::T_R_SERIALIZATION_FAILURE
    })
}

/// A statement's result, sent again while PostgreSQL rolls it back for a deadlock. Every
/// statement that writes several rows of the shared frontier goes through here (a one-row
/// update cannot close a cycle), each on its own: pipelined statements are separate, one
/// rolled back leaves the others done, and only it is sent again.
pub(super) async fn retried<T, F, Fut>(send: F) -> Result<T, tokio_postgres::Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tokio_postgres::Error>>,
{
    retry_while(is_deadlock, send).await
}

/// `send`'s result, sent again while its error is one `again` accepts (up to
/// [`DEADLOCK_RETRIES`] times).
async fn retry_while<T, E, F, Fut>(again: impl Fn(&E) -> bool, mut send: F) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut attempt = 0u32;
    loop {
        match send().await {
            Err(e) if attempt < DEADLOCK_RETRIES && again(&e) => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(20 << attempt)).await;
            }
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A statement that fails with the errors given, then succeeds; counts its sends.
    async fn run(errors: &[&'static str]) -> (Result<u32, &'static str>, usize) {
        let sent = std::cell::Cell::new(0usize);
        let result = retry_while(
            |e: &&str| *e == "deadlock",
            || {
                let n = sent.get();
                sent.set(n + 1);
                let answer = errors.get(n).map_or(Ok(7), |e| Err(*e));
                async move { answer }
            },
        )
        .await;
        (result, sent.get())
    }

    #[tokio::test]
    async fn only_a_rolled_back_statement_is_sent_again_and_not_for_ever() {
        assert_eq!(run(&[]).await, (Ok(7), 1));
        assert_eq!(run(&["deadlock", "deadlock"]).await, (Ok(7), 3));
        // Another error is returned at once, even after a deadlock.
        assert_eq!(run(&["syntax"]).await, (Err("syntax"), 1));
        assert_eq!(run(&["deadlock", "syntax"]).await, (Err("syntax"), 2));
        // Five sends again at most: the sixth deadlock is returned.
        let always = ["deadlock"; 8];
        assert_eq!(run(&always).await, (Err("deadlock"), 6));
        assert_eq!(run(&always[..5]).await, (Ok(7), 6));
    }
}
