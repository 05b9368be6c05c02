//! Schedules in `riverse serve` (issue 46): a tick runs as a turn in the
//! schedule's own conversation, once across servers sharing PostgreSQL;
//! run now through the API; approvals answered by the schedule; catch-up
//! after a stopped server, with the clock moved rather than waited for; the
//! webhook; Riverse's own `weekly_summary` skill.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post as route_post;
use chrono::{DateTime, Datelike, TimeDelta, Timelike, Utc, Weekday};
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use riverse_agent::{Settings, build_agent};
use riverse_server::{AppState, Clock, ScheduleLoops, ServerOptions, app, start_schedules};
use riverse_store::Liveness;
use riverse_test_support::openai::{OpenAiServer, ev_status, ev_text, ev_tool_call};
use riverse_test_support::postgres::fresh_postgres_url;
use riverse_test_support::{Loopback, Project, simple_tool};
use serde_json::{Value, json};

use super::support::{Backend, get, open_store, post, settings_yaml};

/// Riverse's bundled `weekly_summary`, as its skills file writes it.
const WEEKLY_SUMMARY: &str = r#"skills:
  - name: weekly_summary
    description: A Sunday evening greeting
    trigger:
      type: schedule
      cron: "0 20 * * 0"
    steps:
      - respond: Write a short, friendly weekend greeting.
"#;

/// A served project whose schedules run.
struct Scheduled {
    project: Project,
    state: Arc<AppState>,
    /// Dropped to stop the schedules, as a server stopping does.
    loops: Option<ScheduleLoops>,
}

impl Scheduled {
    fn app(&self) -> Router {
        app(self.state.clone())
    }

    /// Stops the schedules and hands the project back, as a server that
    /// stopped leaves it.
    fn stop(mut self) -> Project {
        drop(self.loops.take());
        self.project
    }
}

/// A project with its LLM at `llm` and `extra` settings.
fn project(llm: &OpenAiServer, extra: &str) -> Project {
    let project = Project::new();
    project.settings(&settings_yaml(&llm.url(), extra));
    project
}

/// Serves `project` on `backend`, its schedules running by `clock`.
async fn scheduled(project: Project, backend: &Backend, clock: Clock) -> Scheduled {
    let state = state_for(&project, backend, clock, Liveness::default()).await;
    let loops = Some(start_schedules(&state));
    Scheduled {
        project,
        state,
        loops,
    }
}

/// The state of a server of `project` on `backend`, its schedules running
/// by `clock`, its runs kept alive by `liveness`.
async fn state_for(
    project: &Project,
    backend: &Backend,
    clock: Clock,
    liveness: Liveness,
) -> Arc<AppState> {
    let yaml = std::fs::read_to_string(project.path().join("settings.yaml")).unwrap();
    let settings = Settings::from_yaml(project.path(), None, &yaml).unwrap();
    let agent = build_agent(&settings).await.unwrap();
    let store = open_store(backend, project, liveness).await;
    let serve = &settings.serve;
    let mut options = ServerOptions::new(serve, settings.language, serve.token.clone());
    options.schedules = settings.load_schedules();
    options.schedule_clock = clock;
    AppState::new(Arc::new(agent), store, options)
}

/// A clock three seconds before the next whole minute: time enough to
/// start the servers, after which a schedule of every minute ticks.
fn just_before_a_minute() -> Clock {
    just_before_a_minute_after(TimeDelta::zero())
}

/// [`just_before_a_minute`], `ahead` from now.
fn just_before_a_minute_after(ahead: TimeDelta) -> Clock {
    let millis = (Utc::now() + ahead).timestamp_millis();
    let to_next = 60_000 - millis.rem_euclid(60_000);
    Clock::shifted(ahead + TimeDelta::milliseconds(to_next - 3000))
}

/// The runs of `name` as the API lists them, once `done` holds for them
/// (within 30 s).
async fn runs_once(
    app: &Router,
    name: &str,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = get(app.clone(), &format!("/v1/schedules/{name}/runs")).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let runs = reply.json()["data"].as_array().unwrap().clone();
        if done(&runs) {
            return runs;
        }
        assert!(
            Instant::now() < deadline,
            "waited 30 s for {what}; runs: {runs:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What `check` gives once it gives something (within 30 s).
async fn eventually_some<T, F: Future<Output = Option<T>>>(check: impl Fn() -> F) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "waited 30 s in vain");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every run has ended.
fn all_ended(runs: &[Value]) -> bool {
    !runs.is_empty() && runs.iter().all(|run| run["status"] != "running")
}

fn statuses(runs: &[Value]) -> Vec<(&str, &str)> {
    runs.iter()
        .map(|run| {
            (
                run["kind"].as_str().unwrap(),
                run["status"].as_str().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_schedule_of_every_minute_runs_in_its_own_conversation() {
    let llm = OpenAiServer::start([ev_text("Good morning!")]).fallback(ev_text("Again."));
    let project = project(
        &llm,
        "schedules:\n  - {name: greeter, cron: \"* * * * *\", timezone: Asia/Tokyo, message: \"Say good morning\"}\n",
    );
    let served = scheduled(project, &Backend::Sqlite, just_before_a_minute()).await;
    let runs = runs_once(&served.app(), "greeter", "a run at the tick", |runs| {
        runs.iter().any(|run| run["status"] == "done")
    })
    .await;
    let run = runs.iter().find(|run| run["status"] == "done").unwrap();
    assert_eq!(
        (run["kind"].as_str(), run["answer"].as_str()),
        (Some("tick"), Some("Good morning!"))
    );
    let tick = DateTime::parse_from_rfc3339(run["tick"].as_str().unwrap()).unwrap();
    assert_eq!(
        (tick.second(), tick.offset().local_minus_utc()),
        (0, 9 * 3600)
    );
    let request = &llm.requests()[0];
    assert!(
        request
            .roles_and_contents()
            .contains(&("user".into(), "Say good morning".into())),
        "{:?}",
        request.roles_and_contents()
    );

    let listed = get(served.app(), "/v1/schedules").await.json();
    let greeter = &listed["data"][0];
    assert_eq!(greeter["name"], "greeter");
    assert_eq!(greeter["timezone"], "Asia/Tokyo");
    assert!(
        greeter["next_run"].as_str().unwrap().ends_with(":00+09:00"),
        "{greeter}"
    );
    assert!(greeter["last_run"]["status"].is_string(), "{greeter}");

    // The conversation is the schedule's, marked as such, with the turn in it.
    let conversation_id = run["conversation_id"].as_str().unwrap();
    let conversations = get(served.app(), "/v1/conversations").await.json();
    let listed = &conversations["data"][0];
    assert_eq!(
        (listed["id"].as_str(), listed["schedule"].as_str()),
        (Some(conversation_id), Some("greeter"))
    );
    let conversation = get(
        served.app(),
        &format!("/v1/conversations/{conversation_id}"),
    )
    .await
    .json();
    assert_eq!(conversation["messages"][0]["content"], "Say good morning");
    assert_eq!(conversation["messages"][1]["content"], "Good morning!");
}

/// POSTs `/v1/schedules/{name}/run`.
async fn run_now(app: &Router, name: &str) -> super::support::Reply {
    post(app.clone(), &format!("/v1/schedules/{name}/run"), json!({})).await
}

#[tokio::test]
async fn run_now_runs_at_once_and_never_twice_at_the_same_time() {
    let llm = OpenAiServer::start([
        ev_text("Slow answer.").delay(Duration::from_millis(1500)),
        ev_status(500, "the model is down"),
        ev_text("Back."),
    ]);
    let project = project(
        &llm,
        "schedules:\n  - {name: digest, cron: \"0 8 * * 1\", message: \"Summarise\"}\n",
    );
    let served = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    let app = served.app();

    let started = run_now(&app, "digest").await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run = started.json();
    assert_eq!(
        (run["kind"].as_str(), run["status"].as_str()),
        (Some("now"), Some("running"))
    );
    assert!(
        run["conversation_id"].is_string() && run["message_id"].is_string(),
        "{run}"
    );
    // While it runs, another is refused, saying which run goes on.
    let again = run_now(&app, "digest").await;
    assert_eq!(again.status, 409, "{}", again.body);
    assert!(again.body.contains("is still going"), "{}", again.body);
    let runs = runs_once(&app, "digest", "the first run's end", all_ended).await;
    assert_eq!(runs[0]["answer"], "Slow answer.");

    // A run that fails is recorded with why; the next one runs as usual.
    assert_eq!(run_now(&app, "digest").await.status, 202);
    let runs = runs_once(&app, "digest", "the failed run", |runs| {
        runs.len() == 2 && all_ended(runs)
    })
    .await;
    assert_eq!(runs[0]["status"], "failed");
    assert!(
        runs[0]["error"]
            .as_str()
            .unwrap()
            .contains("the model is down"),
        "{}",
        runs[0]
    );
    assert_eq!(run_now(&app, "digest").await.status, 202);
    let runs = runs_once(&app, "digest", "the third run", |runs| {
        runs.len() == 3 && all_ended(runs)
    })
    .await;
    assert_eq!(
        statuses(&runs),
        vec![("now", "done"), ("now", "failed"), ("now", "done")]
    );
    assert_eq!(runs[0]["answer"], "Back.");
    // All three in the one conversation of the schedule.
    let conversation = runs[0]["conversation_id"].as_str().unwrap();
    assert!(
        runs.iter()
            .all(|run| run["conversation_id"] == conversation)
    );
    let listed = get(app.clone(), "/v1/schedules").await.json();
    assert_eq!(listed["data"][0]["last_run"]["status"], "done");

    // An unknown schedule is a 404 naming it, on every route.
    for (method, uri) in [
        ("POST", "/v1/schedules/nightly/run"),
        ("GET", "/v1/schedules/nightly/runs"),
    ] {
        let reply = if method == "POST" {
            post(app.clone(), uri, json!({})).await
        } else {
            get(app.clone(), uri).await
        };
        assert_eq!(reply.status, 404, "{}", reply.body);
        assert!(
            reply
                .body
                .contains("no schedule named \\\"nightly\\\"; there are digest"),
            "{}",
            reply.body
        );
    }
}

/// A tool whose calls ask for approval, leaving `stamps/stamped` when run.
fn stamping(llm: &OpenAiServer, approval: &str) -> Project {
    let project = project(
        llm,
        &format!(
            "tools:\n  stamp: {{approval: ask}}\nschedules:\n  - {{name: stamper, cron: \"0 * * * *\", message: \"Stamp it\"{approval}}}\n"
        ),
    );
    project.tool(
        "stamp.py",
        &simple_tool(
            "stamp",
            "import os\nos.makedirs(\"stamps\", exist_ok=True)\nopen(os.path.join(\"stamps\", \"stamped\"), \"w\").close()\nreturn ToolResult(True, \"stamped\")\n",
        ),
    );
    project
}

#[tokio::test]
async fn a_call_that_asks_is_denied_at_once_unless_the_approval_is_auto() {
    for (approval, stamped) in [("", false), (", approval: auto", true)] {
        let llm = OpenAiServer::start([
            ev_tool_call("c1", "stamp", json!({})),
            ev_text("Done with stamping."),
        ]);
        let served = scheduled(stamping(&llm, approval), &Backend::Sqlite, Clock::system()).await;
        assert_eq!(run_now(&served.app(), "stamper").await.status, 202);
        let runs = runs_once(&served.app(), "stamper", "the stamping run", all_ended).await;
        assert_eq!(runs[0]["status"], "done", "{}", runs[0]);
        assert_eq!(runs[0]["answer"], "Done with stamping.");
        let call = &runs[0]["tool_calls"][0];
        assert_eq!(
            (call["tool"].as_str(), call["success"].as_bool()),
            (Some("stamp"), Some(stamped)),
            "{call}"
        );
        assert_eq!(
            served.project.path().join("stamps/stamped").exists(),
            stamped
        );
        let (_, result) = &llm.requests()[1].tool_results()[0];
        if stamped {
            assert_eq!(result, "stamped");
        } else {
            assert!(result.contains(riverse_server::SCHEDULE_DENIES), "{result}");
        }
    }
}

#[tokio::test]
async fn missed_ticks_are_caught_up_at_start_as_each_schedule_says() {
    let llm = OpenAiServer::start([]).fallback(ev_text("Caught up."));
    let project = project(
        &llm,
        "schedules:\n  \
         - {name: every, cron: \"0 * * * *\", message: each, catch_up: all}\n  \
         - {name: last, cron: \"0 * * * *\", message: last, catch_up: once}\n  \
         - {name: none, cron: \"0 * * * *\", message: none}\n",
    );
    let first = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    let store = first.state.store.clone();
    let seen = eventually_some(|| {
        let store = store.clone();
        async move { store.schedule_seen_until("none").await.unwrap() }
    })
    .await;
    let project = first.stop();
    drop(store);
    // Started again at half past the third hour after: three ticks missed.
    let seen = DateTime::from_timestamp_millis(seen).unwrap();
    let hour = seen.with_minute(0).unwrap().with_second(0).unwrap();
    let restart = hour + TimeDelta::minutes(3 * 60 + 30);
    let second = scheduled(
        project,
        &Backend::Sqlite,
        Clock::shifted(restart - Utc::now()),
    )
    .await;
    let app = second.app();
    let every = runs_once(&app, "every", "three runs", |runs| {
        runs.len() == 3 && all_ended(runs)
    })
    .await;
    assert_eq!(statuses(&every), vec![("catch_up", "done"); 3]);
    let ticks: Vec<u32> = every
        .iter()
        .map(|run| {
            DateTime::parse_from_rfc3339(run["tick"].as_str().unwrap())
                .unwrap()
                .with_timezone(&Utc)
                .hour()
        })
        .collect();
    let hours = |ahead: i64| (hour + TimeDelta::hours(ahead)).hour();
    assert_eq!(ticks, vec![hours(3), hours(2), hours(1)]);
    let last = runs_once(&app, "last", "one run", all_ended).await;
    assert_eq!(statuses(&last), vec![("catch_up", "done")]);
    assert_eq!(last[0]["tick"], every[0]["tick"]);
    let none = runs_once(&app, "none", "the skip recorded", |runs| !runs.is_empty()).await;
    assert_eq!(statuses(&none), vec![("catch_up", "skipped")]);
    let why = none[0]["error"].as_str().unwrap();
    assert!(
        why.starts_with("3 runs missed while no server ran"),
        "{why}"
    );
    assert!(why.ends_with("catch_up is skip"), "{why}");
    // Four turns in all: three for `every`, one for `last`.
    assert_eq!(llm.requests().len(), 4);
}

/// A tick that comes while the run before it goes on is recorded skipped,
/// not started: here a catch-up run still going at the next minute.
#[tokio::test]
async fn a_tick_that_comes_while_a_run_goes_on_is_skipped() {
    let llm = OpenAiServer::start([ev_text("Slow.").delay(Duration::from_secs(6))])
        .fallback(ev_text("Later."));
    let project = project(
        &llm,
        "schedules:\n  - {name: ping, cron: \"* * * * *\", message: ping, catch_up: once}\n",
    );
    let first = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    let store = first.state.store.clone();
    eventually_some(|| {
        let store = store.clone();
        async move { store.schedule_seen_until("ping").await.unwrap() }
    })
    .await;
    let project = first.stop();
    drop(store);
    // Started again minutes later, just before a minute: the catch-up run
    // is still going when the minute's tick comes.
    let clock = just_before_a_minute_after(TimeDelta::minutes(2));
    let second = scheduled(project, &Backend::Sqlite, clock).await;
    let runs = runs_once(
        &second.app(),
        "ping",
        "the skipped tick and the run",
        |runs| runs.len() == 2 && all_ended(runs),
    )
    .await;
    assert_eq!(
        statuses(&runs),
        vec![("tick", "skipped"), ("catch_up", "done")]
    );
    let why = runs[0]["error"].as_str().unwrap();
    let expected = format!("({}) is still going", runs[1]["id"].as_str().unwrap());
    assert!(why.ends_with(&expected), "{why}");
    assert_eq!(llm.requests().len(), 1);
}

#[tokio::test]
async fn replicas_on_one_postgres_run_each_tick_once() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let llm = OpenAiServer::start([]).fallback(ev_text("Once."));
    let settings = "schedules:\n  - {name: ping, cron: \"* * * * *\", message: ping}\n";
    let clock = just_before_a_minute();
    let backend = Backend::Postgres(url);
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(scheduled(project(&llm, settings), &backend, clock).await);
    }
    let runs = runs_once(&replicas[2].app(), "ping", "the tick's run", |runs| {
        runs.iter().any(|run| run["status"] == "done")
    })
    .await;
    let tick = runs[0]["tick"].clone();
    // Every replica has looked at the tick by now: each marks it seen after
    // claiming it (or finding it taken).
    let tick_millis = DateTime::parse_from_rfc3339(tick.as_str().unwrap())
        .unwrap()
        .timestamp_millis();
    let store = replicas[0].state.store.clone();
    eventually_some(|| {
        let store = store.clone();
        async move {
            let seen = store.schedule_seen_until("ping").await.unwrap()?;
            (seen >= tick_millis).then_some(())
        }
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    for replica in &replicas {
        let runs = get(replica.app(), "/v1/schedules/ping/runs").await.json();
        let at_tick: Vec<&Value> = runs["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|run| run["tick"] == tick)
            .collect();
        assert_eq!(at_tick.len(), 1, "{runs:#}");
    }
    let asked = llm
        .requests()
        .iter()
        .filter(|request| {
            request
                .roles_and_contents()
                .last()
                .is_some_and(|(_, content)| content == "ping")
        })
        .count();
    assert_eq!(asked, 1);
}

/// A receiver on loopback that keeps each body posted to it and answers
/// with `statuses` in turn (200 once they run out).
fn receiver(statuses: Vec<u16>) -> (Loopback, Arc<Mutex<Vec<Value>>>) {
    let received: Arc<Mutex<Vec<Value>>> = Arc::default();
    let kept = received.clone();
    let statuses = Arc::new(Mutex::new(statuses.into_iter()));
    let app = Router::new().route(
        "/hook",
        route_post(move |body: String| {
            let (kept, statuses) = (kept.clone(), statuses.clone());
            async move {
                kept.lock()
                    .push(serde_json::from_str::<Value>(&body).unwrap());
                let status = statuses.lock().next().unwrap_or(200);
                axum::http::StatusCode::from_u16(status).unwrap()
            }
        }),
    );
    (Loopback::serve(app), received)
}

#[tokio::test]
async fn each_run_is_posted_to_the_webhook_with_retries() {
    let (hook, received) = receiver(vec![503]);
    let llm = OpenAiServer::start([ev_text("Here is the digest.")]);
    let project = project(
        &llm,
        &format!(
            "schedules:\n  - {{name: digest, cron: \"0 8 * * *\", timezone: UTC, message: go, notify: {{webhook: \"{}/hook\"}}}}\n",
            hook.url()
        ),
    );
    let served = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    assert_eq!(run_now(&served.app(), "digest").await.status, 202);
    let runs = runs_once(&served.app(), "digest", "the run", all_ended).await;
    // Refused once (503), then taken: the same payload twice.
    let deadline = Instant::now() + Duration::from_secs(30);
    while received.lock().len() < 2 {
        assert!(
            Instant::now() < deadline,
            "waited 30 s for the webhook: {:?}",
            received.lock()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let posts = received.lock().clone();
    assert_eq!(posts[0], posts[1]);
    let posted = &posts[0];
    assert_eq!(
        (
            posted["schedule"].as_str(),
            posted["outcome"].as_str(),
            posted["answer"].as_str()
        ),
        (Some("digest"), Some("done"), Some("Here is the digest."))
    );
    assert_eq!(posted["run_id"], runs[0]["id"]);
    assert_eq!(posted["conversation_id"], runs[0]["conversation_id"]);
    assert_eq!(posted["tick"], runs[0]["tick"]);
}

#[tokio::test]
async fn a_webhook_that_never_answers_holds_no_run_back() {
    let hanging = Router::new().route("/hook", route_post(std::future::pending::<()>));
    let hook = Loopback::serve(hanging);
    let llm = OpenAiServer::start([]).fallback(ev_text("ok"));
    let project = project(
        &llm,
        &format!(
            "schedules:\n  - {{name: digest, cron: \"0 8 * * *\", message: go, notify: {{webhook: \"{}/hook\"}}}}\n",
            hook.url()
        ),
    );
    let served = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    for count in 1..=2 {
        assert_eq!(run_now(&served.app(), "digest").await.status, 202);
        let runs = runs_once(&served.app(), "digest", "the run's end", |runs| {
            runs.len() == count && all_ended(runs)
        })
        .await;
        assert_eq!(runs[0]["status"], "done");
    }
}

#[tokio::test]
async fn riverse_weekly_summary_skill_is_a_schedule_unchanged() {
    // The respond step's reply, then the turn's answer from it.
    let llm = OpenAiServer::start([
        ev_text("Happy Sunday!"),
        ev_text("Have a lovely Sunday evening!"),
    ]);
    let project = project(&llm, "");
    project.file("agent/skills/skills_en.yaml", WEEKLY_SUMMARY);
    let served = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    let listed = get(served.app(), "/v1/schedules").await.json();
    let weekly = &listed["data"][0];
    assert_eq!(
        (
            weekly["name"].as_str(),
            weekly["cron"].as_str(),
            weekly["source"]["kind"].as_str()
        ),
        (Some("weekly_summary"), Some("0 20 * * 0"), Some("skill"))
    );
    assert_eq!(weekly["errors"], json!([]));
    let next = DateTime::parse_from_rfc3339(weekly["next_run"].as_str().unwrap()).unwrap();
    assert_eq!(
        (next.weekday(), next.hour(), next.minute()),
        (Weekday::Sun, 20, 0)
    );
    assert_eq!(weekly["last_run"], Value::Null);

    assert_eq!(run_now(&served.app(), "weekly_summary").await.status, 202);
    let runs = runs_once(&served.app(), "weekly_summary", "the greeting", all_ended).await;
    assert_eq!(
        runs[0]["answer"], "Have a lovely Sunday evening!",
        "{:#}",
        runs[0]
    );
    assert_eq!(runs[0]["status"], "done");
    let requests = llm.requests();
    assert_eq!(
        requests[0].roles_and_contents()[1].1,
        "Write a short, friendly weekend greeting."
    );
    let system = serde_json::to_string(&requests[1].messages()[0]).unwrap();
    assert!(system.contains("Happy Sunday!"), "{system}");
    // The answer keeps the skill it applied.
    let conversation = runs[0]["conversation_id"].as_str().unwrap();
    let stored = get(served.app(), &format!("/v1/conversations/{conversation}"))
        .await
        .json();
    assert_eq!(stored["messages"][0]["content"], "/weekly_summary");
    assert_eq!(stored["messages"][1]["skills"][0]["name"], "weekly_summary");
}

/// Heartbeats judged stale after a fifth of a second.
const QUICK: Liveness = Liveness {
    heartbeat: Duration::from_millis(50),
    stale_after: Duration::from_millis(200),
};

/// A server that dies mid-run (its runtime gone, as with its process)
/// leaves the run running only until its heartbeat goes stale: then it is
/// failed as interrupted, and the schedule runs again.
#[tokio::test]
async fn a_run_whose_server_died_is_interrupted_not_running_forever() {
    let llm = OpenAiServer::start([riverse_test_support::openai::ev_hang(), ev_text("Back.")]);
    let project = project(
        &llm,
        "schedules:\n  - {name: digest, cron: \"0 8 * * 1\", message: go}\n",
    );
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(async {
                let state = state_for(&project, &Backend::Sqlite, Clock::system(), QUICK).await;
                let started = run_now(&app(state), "digest").await;
                assert_eq!(started.status, 202, "{}", started.body);
                // The turn waits for the LLM, which never answers.
                riverse_test_support::eventually_async(
                    Duration::from_secs(30),
                    "the run's question to the LLM",
                    || llm.requests().len() == 1,
                )
                .await;
            });
            // Every task of that server ends here, its heartbeats with them.
            drop(runtime);
        });
    });
    let survivor = state_for(&project, &Backend::Sqlite, Clock::system(), QUICK).await;
    let app = app(survivor);
    let runs = runs_once(&app, "digest", "the run taken for interrupted", all_ended).await;
    assert_eq!(
        (runs[0]["status"].as_str(), runs[0]["error"].as_str()),
        (Some("failed"), Some(riverse_store::INTERRUPTED))
    );
    let conversation = runs[0]["conversation_id"].as_str().unwrap();
    let stored = get(app.clone(), &format!("/v1/conversations/{conversation}"))
        .await
        .json();
    assert_eq!(stored["messages"][1]["status"], "failed");
    assert_eq!(run_now(&app, "digest").await.status, 202);
    let runs = runs_once(&app, "digest", "the next run", |runs| {
        runs.len() == 2 && all_ended(runs)
    })
    .await;
    assert_eq!(runs[0]["answer"], "Back.");
}

/// The chat page marks a schedule's conversation with the schedule's name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_marks_a_schedules_conversation() {
    if !riverse_test_support::chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([ev_text("Digest.")]);
    let project = project(
        &llm,
        "schedules:\n  - {name: digest, cron: \"0 8 * * 1\", message: go}\n",
    );
    project.fixture("weather.py");
    let served = scheduled(project, &Backend::Sqlite, Clock::system()).await;
    assert_eq!(run_now(&served.app(), "digest").await.status, 202);
    runs_once(&served.app(), "digest", "the run", all_ended).await;
    assert_eq!(
        post(served.app(), "/v1/conversations", json!({}))
            .await
            .status,
        200
    );
    let server = super::clients::Listening::start(served.state.clone()).await;
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-schedules");
    let seen = super::clients::python(
        "page_schedules.py",
        vec![format!("{}/", server.url), out.display().to_string()],
    )
    .await;
    assert_eq!(
        seen,
        json!([
            ["New conversation", [], []],
            [
                "schedule digest",
                ["schedule"],
                ["The runs of schedule digest"]
            ]
        ])
    );
    assert!(server.stop().await);
}
