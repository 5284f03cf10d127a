//! Tests of the PostgreSQL frontier's pure parts: the shares and the connection string.

use super::{check_userinfo, fair_share};

#[test]
fn the_shares_of_the_live_workers_cover_every_server() {
    // Ten servers, three equal workers: 4 + 3 + 3.
    let parts: Vec<u64> = (0..3).map(|i| fair_share(10, 8 * i, 8, 24)).collect();
    assert_eq!(parts, [4, 3, 3]);
    // Capacities 1 and 3: a quarter and three quarters.
    assert_eq!((fair_share(10, 0, 1, 4), fair_share(10, 1, 3, 4)), (3, 7));
    // Any capacities and counts: the parts sum to the servers, each within one of its
    // weight.
    for servers in [0, 1, 2, 5, 10, 97, 1000] {
        for caps in [vec![1, 1, 1], vec![8, 2, 32, 1], vec![5], vec![3, 3]] {
            let total: u64 = caps.iter().sum();
            let mut before = 0;
            let mut sum = 0;
            for c in &caps {
                let part = fair_share(servers, before, *c, total);
                let exact = servers as f64 * *c as f64 / total as f64;
                assert!((part as f64 - exact).abs() < 1.0, "{servers} {caps:?}");
                sum += part;
                before += c;
            }
            assert_eq!(sum, servers, "{caps:?}");
        }
    }
    // Alone, or counted before the others saw it: every server.
    assert_eq!(fair_share(6, 0, 8, 8), 6);
    assert_eq!(fair_share(6, 0, 8, 0), 6);
    assert_eq!(fair_share(u64::MAX, 0, u64::MAX, 1), u64::MAX);
}

#[test]
fn a_url_whose_password_would_send_it_to_another_server_is_refused() {
    for refused in [
        "postgres://glaneur:s3cr3t@db.attacker.example/x@127.0.0.1:1/corpora",
        "postgres://u:pa#ss@h/db",
        "postgresql://u:pa/ss@h/db",
        "postgres://u:pa?ss@h/db",
        "postgres://u:pa ss@h/db",
        "POSTGRES://u:p@ss@h/db",
    ] {
        let err = check_userinfo(refused).unwrap_err().to_string();
        assert!(err.contains("percent-encoded"), "{refused}: {err}");
        assert!(!err.contains("ss@") && !err.contains("s3cr3t"), "{err}");
    }
    for accepted in [
        "postgres://u:pa%40ss@h/db",
        "postgres://u@h/db?application_name=a@b",
        "postgres://h:5432/db",
        "postgres://u:p:ss@h/db",
        "host=h user=u password='p@ss/#?' dbname=d",
    ] {
        assert!(check_userinfo(accepted).is_ok(), "{accepted}");
    }
}
