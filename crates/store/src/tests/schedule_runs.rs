//! Schedule runs: claimed once per tick by any number of servers, never two
//! at once for one schedule, interrupted when their server stops.

use pretty_assertions::assert_eq;

use super::*;

/// Of several servers claiming the same tick at once, one runs it; a later
/// tick waits for no one but is refused while a run is still going.
#[tokio::test]
async fn each_tick_is_claimed_once_across_servers() {
    for database in databases().await {
        let servers = [
            database.open(PATIENT).await,
            database.open(PATIENT).await,
            database.open(PATIENT).await,
        ];
        let claims = claim_together(&servers).await;
        let claimed: Vec<&ScheduleRun> = claims
            .iter()
            .filter_map(|claim| match claim {
                Claim::Claimed(run) => Some(run),
                _ => None,
            })
            .collect();
        assert_eq!(claimed.len(), 1, "{claims:?}");
        let run = claimed[0].clone();
        assert_eq!(
            (run.schedule.as_str(), run.tick, run.kind, run.status),
            ("digest", 60_000, RunKind::Tick, RunStatus::Running)
        );
        assert!(
            claims
                .iter()
                .all(|claim| matches!(claim, Claim::Claimed(_) | Claim::Taken | Claim::Running(_))),
            "{claims:?}"
        );

        // The next tick comes while the run goes on: it is not started.
        let next = servers[1]
            .claim_schedule_run("digest", 120_000, RunKind::Tick)
            .await
            .unwrap();
        assert_eq!(next, Claim::Running(run.clone()));
        let now = servers[2]
            .claim_schedule_run("digest", 130_000, RunKind::Now)
            .await
            .unwrap();
        assert_eq!(now, Claim::Running(run.clone()));
        assert!(
            servers[1]
                .skip_schedule_run("digest", 120_000, RunKind::Tick, "still going")
                .await
                .unwrap()
        );
        // Another server skipping the same tick records nothing more.
        assert!(
            !servers[2]
                .skip_schedule_run("digest", 120_000, RunKind::Tick, "still going")
                .await
                .unwrap()
        );
        // Another schedule is not held up.
        assert!(matches!(
            servers[2]
                .claim_schedule_run("other", 120_000, RunKind::Tick)
                .await
                .unwrap(),
            Claim::Claimed(_)
        ));

        let owner = servers
            .iter()
            .zip(&claims)
            .find_map(|(store, claim)| matches!(claim, Claim::Claimed(_)).then_some(store))
            .unwrap();
        owner
            .finish_schedule_run(&run.id, RunStatus::Failed, Some("the LLM said no"))
            .await
            .unwrap();
        let third = servers[0]
            .claim_schedule_run("digest", 180_000, RunKind::Tick)
            .await
            .unwrap();
        let Claim::Claimed(third) = third else {
            panic!("{third:?}")
        };
        owner
            .finish_schedule_run(&third.id, RunStatus::Done, None)
            .await
            .unwrap();
        // A tick already run is not run again, however late it is asked for.
        assert_eq!(
            servers[2]
                .claim_schedule_run("digest", 60_000, RunKind::CatchUp)
                .await
                .unwrap(),
            Claim::Taken
        );

        let runs = servers[2].schedule_runs("digest", 10).await.unwrap();
        let listed: Vec<(i64, RunStatus, Option<&str>)> = runs
            .iter()
            .map(|run| (run.tick, run.status, run.error.as_deref()))
            .collect();
        assert_eq!(
            listed,
            vec![
                (180_000, RunStatus::Done, None),
                (120_000, RunStatus::Skipped, Some("still going")),
                (60_000, RunStatus::Failed, Some("the LLM said no")),
            ]
        );
        assert!(runs.iter().all(|run| run.ended_at.is_some()));
        assert_eq!(
            servers[0].schedule_runs("digest", 1).await.unwrap().len(),
            1
        );
    }
}

/// A run whose server stopped beating is failed as interrupted, and no
/// longer holds the schedule's next tick back.
#[tokio::test]
async fn a_run_whose_server_stopped_is_interrupted() {
    for database in databases().await {
        let gone = database.open(QUICK).await;
        let Claim::Claimed(run) = gone
            .claim_schedule_run("digest", 60_000, RunKind::Tick)
            .await
            .unwrap()
        else {
            panic!("not claimed")
        };
        let conversation = gone
            .schedule_conversation("digest", "digest")
            .await
            .unwrap();
        gone.schedule_run_answer(&run.id, &conversation, "msg_x")
            .await
            .unwrap();
        drop(gone);
        outlast_quick().await;
        let survivor = database.open(QUICK).await;
        let runs = survivor.schedule_runs("digest", 10).await.unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(
            (runs[0].status, runs[0].error.as_deref()),
            (RunStatus::Failed, Some(INTERRUPTED))
        );
        assert_eq!(
            runs[0].conversation_id.as_deref(),
            Some(conversation.as_str())
        );
        assert_eq!(runs[0].message_id.as_deref(), Some("msg_x"));
        let next = survivor
            .claim_schedule_run("digest", 120_000, RunKind::Tick)
            .await
            .unwrap();
        let Claim::Claimed(next) = next else {
            panic!("{next:?}")
        };
        // A live server's beats keep its run alive past the stale bound.
        for _ in 0..4 {
            tokio::time::sleep(QUICK.heartbeat).await;
            survivor.beat_schedule_run(&next.id).await.unwrap();
        }
        let runs = survivor.schedule_runs("digest", 1).await.unwrap();
        assert_eq!(runs[0].status, RunStatus::Running);
    }
}

/// How far a schedule's ticks were looked for: marks only move forward,
/// and a tick with a run counts; a run on request does not.
#[tokio::test]
async fn the_time_seen_until_moves_forward_only() {
    for (_dir, store) in stores().await {
        assert_eq!(store.schedule_seen_until("digest").await.unwrap(), None);
        store.mark_schedule_seen("digest", 100_000).await.unwrap();
        store.mark_schedule_seen("digest", 50_000).await.unwrap();
        assert_eq!(
            store.schedule_seen_until("digest").await.unwrap(),
            Some(100_000)
        );
        store
            .skip_schedule_run("digest", 200_000, RunKind::CatchUp, "catch_up is skip")
            .await
            .unwrap();
        assert_eq!(
            store.schedule_seen_until("digest").await.unwrap(),
            Some(200_000)
        );
        let Claim::Claimed(now) = store
            .claim_schedule_run("digest", 900_000, RunKind::Now)
            .await
            .unwrap()
        else {
            panic!("not claimed")
        };
        assert_eq!(now.kind, RunKind::Now);
        assert_eq!(
            store.schedule_seen_until("digest").await.unwrap(),
            Some(200_000)
        );
        assert_eq!(store.schedule_seen_until("other").await.unwrap(), None);
    }
}

/// A schedule has one conversation, marked as its own, made again when
/// deleted.
#[tokio::test]
async fn a_schedule_has_its_own_conversation() {
    for (_dir, store) in stores().await {
        let first = store
            .schedule_conversation("digest", "digest")
            .await
            .unwrap();
        let again = store
            .schedule_conversation("digest", "ignored")
            .await
            .unwrap();
        assert_eq!(first, again);
        let other = store.create_conversation().await.unwrap();
        assert_eq!(other.schedule, None);
        let page = store.list_conversations(10, 0).await.unwrap();
        let marked: Vec<(String, Option<String>)> = page
            .conversations
            .iter()
            .map(|summary| (summary.title.clone(), summary.schedule.clone()))
            .collect();
        assert!(
            marked.contains(&("digest".into(), Some("digest".into()))),
            "{marked:?}"
        );
        let shown =
            serde_json::to_value(store.conversation(&first).await.unwrap().unwrap()).unwrap();
        assert_eq!(shown["schedule"], "digest");
        let plain = serde_json::to_value(&other).unwrap();
        assert!(plain.get("schedule").is_none(), "{plain}");
        assert!(store.delete_conversation(&first).await.unwrap());
        let remade = store
            .schedule_conversation("digest", "digest")
            .await
            .unwrap();
        assert_ne!(remade, first);
    }
}

/// A database of the ninth schema upgrades with its conversations, none of
/// them a schedule's.
#[tokio::test]
async fn a_database_from_before_schedules_upgrades() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    sqlite_at_step(
        &path,
        9,
        "INSERT INTO conversations VALUES ('conv_old', 'old', 0, 0);",
    );
    let upgraded = Store::Sqlite(SqliteStore::open_with(&path, PATIENT).await.unwrap());
    let old = upgraded.conversation("conv_old").await.unwrap().unwrap();
    assert_eq!(
        (old.summary.title.as_str(), old.summary.schedule),
        ("old", None)
    );
    assert!(
        upgraded
            .schedule_runs("digest", 5)
            .await
            .unwrap()
            .is_empty()
    );
}

/// Each store claims `digest`'s tick at 60 s, all at once, each on a task
/// of its own.
async fn claim_together(servers: &[Store]) -> Vec<Claim> {
    let tasks: Vec<_> = servers
        .iter()
        .cloned()
        .map(|store| {
            tokio::spawn(async move {
                store
                    .claim_schedule_run("digest", 60_000, RunKind::Tick)
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut claims = Vec::new();
    for task in tasks {
        claims.push(task.await.unwrap());
    }
    claims
}
