//! TLS between glaneur and the PostgreSQL server of `--store`: a throw-away certificate
//! authority (rcgen) signs the server's certificate for `db.test` and 127.0.0.1; the server
//! accepts TLS connections only (`hostssl`). Checked through the binary (`glaneur run --store`
//! on a small web): `verify-full` and `verify-ca` with the test authority connect; an unknown
//! authority, a host name the certificate does not give (under `verify-full`), and no TLS at
//! all are refused, each with a message.

use std::path::Path;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};

use crate::postgres::PgServer;
use crate::server::TestWeb;
use crate::support::*;

/// A certificate authority: its PEM certificate and what signs with it.
struct Authority {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

fn authority(name: &str) -> Authority {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let cert = params.self_signed(&key).unwrap();
    Authority {
        pem: cert.pem(),
        issuer: Issuer::new(params, key),
    }
}

/// The server's certificate (for `db.test` and 127.0.0.1) and key, signed by `ca`.
fn server_cert(ca: &Authority) -> (String, String) {
    let key = KeyPair::generate().unwrap();
    let params =
        CertificateParams::new(vec!["db.test".to_string(), "127.0.0.1".to_string()]).unwrap();
    let cert = params.signed_by(&key, &ca.issuer).unwrap();
    (cert.pem(), key.serialize_pem())
}

fn write_web(root: &Path) {
    let dir = root.join("tls.test");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..4 {
        let next = (i + 1) % 4;
        std::fs::write(
            dir.join(format!("p{i}.html")),
            format!(
                "<!DOCTYPE html><html lang=\"fr\"><head><title>Graphe {i}</title></head><body>\
                 <p>Le graphe numéro {i} possède des sommets et des arêtes ; on le parcourt en \
                 largeur depuis le sommet zéro, et l'arbre couvrant obtenu compte {i} niveaux.</p>\
                 <a href=\"/p{next}.html\">Graphe {next}</a></body></html>"
            ),
        )
        .unwrap();
    }
    std::fs::write(
        root.join("topic.toml"),
        "name = \"graphes-tls\"\nlanguages = [\"fr\"]\n[seeds]\nurls = [\"http://tls.test/p0.html\"]\n\
         [formula]\nexpression = '\"graphe\"'\n[politeness]\ncontact = \"mailto:test@example.org\"\n\
         delay_seconds = 0\n",
    )
    .unwrap();
}

#[test]
fn tls_to_postgres_is_verified_against_the_given_authority() {
    let dir = tempfile::tempdir().unwrap();
    write_web(dir.path());
    let topic = dir.path().join("topic.toml");
    let ca = authority("glaneur test authority");
    let stranger = authority("another authority");
    let (cert, key) = server_cert(&ca);
    let pg = PgServer::start_tls(&cert, &key);
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.pem).unwrap();
    let stranger_file = dir.path().join("stranger.pem");
    std::fs::write(&stranger_file, &stranger.pem).unwrap();
    let web = TestWeb::start(dir.path());
    let port = pg.port();
    // Each run its own database: a crawl id (the topic's name) is crawled once per database.
    let run = |name: &str, conn: String| {
        pg.sql(&format!("CREATE DATABASE \"{name}\""));
        let conn = conn.replace("dbname=postgres", &format!("dbname={name}"));
        let conn = conn.replace(&format!("{port}/postgres"), &format!("{port}/{name}"));
        let out = dir.path().join(name);
        let output = run_command(&topic, &out, &web.proxy(), &["--store", &conn])
            .output()
            .unwrap();
        (output, out)
    };
    // The test authority, the name in the certificate (through hostaddr) or its address.
    for (name, conn) in [
        (
            "full-by-name",
            format!(
                "host=db.test hostaddr=127.0.0.1 port={port} user=glaneur dbname=postgres \
                 sslmode=verify-full sslrootcert={}",
                ca_file.display()
            ),
        ),
        (
            "full-url",
            format!(
                "postgres://glaneur@127.0.0.1:{port}/postgres?sslmode=verify-full&sslrootcert={}",
                ca_file.display()
            ),
        ),
        (
            "ca-other-name",
            format!(
                "host=localhost hostaddr=127.0.0.1 port={port} user=glaneur dbname=postgres \
                 sslmode=verify-ca sslrootcert={}",
                ca_file.display()
            ),
        ),
    ] {
        let (output, out) = run(name, conn);
        assert_exit(&output, 0);
        let pages: i64 = db(&out)
            .query_row(
                "SELECT count(*) FROM urls WHERE state = 'fetched'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(pages, 4, "{name}");
    }
    // Refused: an unknown authority, a name the certificate does not give, no TLS.
    for (name, conn, said) in [
        (
            "stranger",
            format!(
                "host=127.0.0.1 port={port} user=glaneur dbname=postgres sslmode=verify-full \
                 sslrootcert={}",
                stranger_file.display()
            ),
            "UnknownIssuer",
        ),
        (
            "wrong-name",
            format!(
                "host=localhost hostaddr=127.0.0.1 port={port} user=glaneur dbname=postgres \
                 sslmode=verify-full sslrootcert={}",
                ca_file.display()
            ),
            "not valid for name \"localhost\"",
        ),
        (
            "plain",
            format!("host=127.0.0.1 port={port} user=glaneur dbname=postgres sslmode=disable"),
            "no encryption",
        ),
    ] {
        let (output, out) = run(name, conn);
        assert_exit(&output, 2);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("cannot connect to the PostgreSQL server"),
            "{name}: {stderr}"
        );
        assert!(stderr.contains(said), "{name}: {stderr}");
        assert!(!out.join("crawl.sqlite").exists(), "{name}");
    }
    // Nothing was asked of the web by the refused runs: three runs of 4 pages (and robots.txt).
    let pages = web.log().iter().filter(|h| h.path != "/robots.txt").count();
    assert_eq!(pages, 12);
}
