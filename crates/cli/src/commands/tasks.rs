//! `riverse tasks [--json]` and `riverse tasks cancel ID [--url URL]`.
//!
//! The list is read from the project's store (`serve.storage`), so it
//! needs no server; a project never served has none. A cancel must reach
//! the process that runs the call, so it asks the running `riverse serve`
//! (`POST /v1/tasks/{id}/cancel`, with `RIVERSE_TOKEN` or `serve.token`).
//!
//! `chat` and `ask` keep their tasks' rows in the same store ([`rows_for`]).

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use riverse_agent::{Agent, Settings, Storage};
use riverse_server::TaskRows;
use riverse_store::Task;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::output::{Exit, print, print_json, usage};

/// The most tasks listed.
const LISTED: usize = 100;

pub async fn list(settings: &Settings, as_json: bool) -> anyhow::Result<Exit> {
    let tasks = read_tasks(settings).await?;
    if as_json {
        let tasks: Vec<Value> = tasks.iter().map(|task| json!(task)).collect();
        print_json(&json!({"tasks": tasks}))?;
    } else {
        print(&table(&tasks))?;
    }
    Ok(Exit::Success)
}

/// Where `chat` and `ask` keep their tasks' rows: the project's store, for
/// a project where calls may become tasks. `None` for any other, and when
/// the store can't be opened (said on stderr): the tasks still run.
pub async fn rows_for(settings: &Settings, agent: &Agent) -> Option<TaskRows> {
    if !agent.has_background_tools() {
        return None;
    }
    match super::serve::open_store(settings).await {
        Ok((store, _where)) => Some(TaskRows::new(store)),
        Err(err) => {
            eprintln!("riverse: background tasks are not stored: {err:#}");
            None
        }
    }
}

/// The store's tasks, newest first; none when the project has no store yet.
async fn read_tasks(settings: &Settings) -> anyhow::Result<Vec<Task>> {
    let sqlite = settings.project_dir.join(super::serve::SQLITE_FILE);
    if settings.serve.storage == Storage::Sqlite && !sqlite.exists() {
        return Ok(Vec::new());
    }
    let (store, _where) = super::serve::open_store(settings).await?;
    Ok(store.tasks(LISTED).await?)
}

fn table(tasks: &[Task]) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        });
    let rows: Vec<[String; 5]> = tasks
        .iter()
        .map(|task| {
            [
                task.id.clone(),
                task.state.as_str().to_owned(),
                task.tool.clone(),
                ago(now - task.created_at),
                task.error.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let header = ["ID", "STATE", "TOOL", "STARTED", "ERROR"].map(str::to_owned);
    let mut widths = header.clone().map(|cell| cell.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:width$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    let working = tasks
        .iter()
        .filter(|task| !task.state.is_terminal())
        .count();
    text.push_str(&format!("{} tasks, {working} working\n", tasks.len()));
    text
}

/// `12s ago`, `5m ago`, `3h ago`, `2d ago`.
fn ago(millis: i64) -> String {
    let secs = millis.max(0) / 1000;
    match secs {
        0..60 => format!("{secs}s ago"),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

pub async fn cancel(
    settings: &Settings,
    id: &str,
    url: Option<&str>,
    as_json: bool,
) -> anyhow::Result<Exit> {
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(usage(format!("{id:?} is not a task id (task_...)")));
    }
    let base = url.map_or_else(|| format!("http://{}", settings.serve.addr), str::to_owned);
    let token = std::env::var("RIVERSE_TOKEN")
        .ok()
        .filter(|token| !token.is_empty())
        .or_else(|| settings.serve.token.clone());
    let (status, body) = post(&base, &format!("/v1/tasks/{id}/cancel"), token.as_deref())
        .await
        .with_context(|| format!("can't reach riverse serve at {base} to cancel {id}"))?;
    let reply: Value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    if status != 200 {
        let message = reply["error"]["message"]
            .as_str()
            .map_or_else(|| reply.to_string(), str::to_owned);
        eprintln!("riverse: can't cancel {id}: {message}");
        return Ok(Exit::Failure);
    }
    if as_json {
        print_json(&reply)?;
    } else {
        print(&format!("cancelled {id}\n"))?;
    }
    Ok(Exit::Success)
}

/// One `POST path` with no body to the server at `base` (`http://HOST:PORT`);
/// the status and the body.
async fn post(base: &str, path: &str, token: Option<&str>) -> anyhow::Result<(u16, String)> {
    let host = base
        .strip_prefix("http://")
        .ok_or_else(|| usage(format!("--url {base:?}: expected http://HOST:PORT")))?
        .trim_end_matches('/');
    let mut stream = tokio::net::TcpStream::connect(host).await?;
    let authorization = token.map_or_else(String::new, |token| {
        format!("Authorization: Bearer {token}\r\n")
    });
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{authorization}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await?;
    let reply = String::from_utf8_lossy(&reply);
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .context("the server's reply has no status")?;
    Ok((status, body.to_owned()))
}
