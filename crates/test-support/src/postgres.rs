//! A PostgreSQL database of its own for each test, in the server that
//! `RIVERSE_TEST_POSTGRES_URL` names (`crates/store/tests/start-postgres.sh`
//! starts one).

/// A URL whose connections use a fresh, empty schema, or `None` when no
/// server is configured. On CI (`CI` set) a missing server is an error, so
/// the PostgreSQL tests can't be skipped there unnoticed.
pub async fn fresh_postgres_url() -> Option<String> {
    let Some(url) = std::env::var("RIVERSE_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must set RIVERSE_TEST_POSTGRES_URL (see crates/store/tests/start-postgres.sh)"
        );
        eprintln!("skipped: RIVERSE_TEST_POSTGRES_URL is not set");
        return None;
    };
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|err| panic!("connect to RIVERSE_TEST_POSTGRES_URL: {err}"));
    let connection = tokio::spawn(connection);
    let schema = format!("test_{}", uuid::Uuid::new_v4().simple());
    client
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .await
        .expect("create a test schema");
    drop(client);
    let _ = connection.await;
    let separator = if url.contains('?') { '&' } else { '?' };
    Some(format!(
        "{url}{separator}options=-c%20search_path%3D{schema}"
    ))
}
