//! Background tasks: written working, ended once, kept alive by their
//! server, claimed by one server when theirs stopped.

use pretty_assertions::assert_eq;

use super::*;

fn new_task<'a>(id: &'a str, arguments: &'a Value) -> NewTask<'a> {
    NewTask {
        id,
        conversation_id: Some("conv_1"),
        message_id: Some("msg_1"),
        call_id: "c1",
        tool: "slow",
        arguments,
    }
}

/// A task goes from working to one end, which stands: a later end (a
/// cancel racing the call's own end) changes nothing.
#[tokio::test]
async fn a_task_is_written_working_and_ends_once() {
    for (_dir, store) in stores().await {
        let arguments = json!({"seconds": 3});
        assert!(
            store
                .create_task(&new_task("task_1", &arguments))
                .await
                .unwrap()
        );
        assert!(
            !store
                .create_task(&new_task("task_1", &arguments))
                .await
                .unwrap()
        );
        let task = store.task("task_1").await.unwrap().unwrap();
        assert_eq!(
            (
                task.state,
                task.tool.as_str(),
                task.call_id.as_str(),
                &task.arguments
            ),
            (TaskState::Working, "slow", "c1", &arguments)
        );
        assert_eq!(task.conversation_id.as_deref(), Some("conv_1"));
        assert_eq!(task.message_id.as_deref(), Some("msg_1"));
        assert_eq!((task.result.clone(), task.ended_at), (None, None));
        assert_eq!(task.handed_over, None);

        store.task_handed_over("task_1", "srv-7").await.unwrap();
        let question = json!({"question_id": "q_1", "message": "Ship it?"});
        store
            .task_question("task_1", Some(&question))
            .await
            .unwrap();
        let waiting = store.task("task_1").await.unwrap().unwrap();
        assert_eq!(
            (waiting.state, waiting.question),
            (TaskState::InputRequired, Some(question))
        );
        store.task_question("task_1", None).await.unwrap();
        let answered = store.task("task_1").await.unwrap().unwrap();
        assert_eq!(
            (answered.state, answered.question),
            (TaskState::Working, None)
        );
        let progress = json!({"progress": 1, "total": 3, "message": "one of three"});
        store.task_progress("task_1", &progress).await.unwrap();
        let record = json!({"call_id": "c1", "tool": "slow", "success": true, "data": "done"});
        assert!(
            store
                .finish_task("task_1", TaskState::Completed, Some(&record), None)
                .await
                .unwrap()
        );
        assert!(
            !store
                .finish_task("task_1", TaskState::Cancelled, None, Some("too late"))
                .await
                .unwrap()
        );
        store
            .task_progress("task_1", &json!({"progress": 2}))
            .await
            .unwrap();
        let ended = store.task("task_1").await.unwrap().unwrap();
        assert_eq!(ended.state, TaskState::Completed);
        assert_eq!(ended.progress, Some(progress));
        assert_eq!(ended.result, Some(record));
        assert_eq!(ended.error, None);
        assert_eq!(ended.handed_over.as_deref(), Some("srv-7"));
        assert!(ended.ended_at.is_some_and(|at| at >= ended.created_at));
        assert_eq!(store.task("task_none").await.unwrap(), None);
        assert!(
            !store
                .finish_task("task_none", TaskState::Failed, None, None)
                .await
                .unwrap()
        );
    }
}

/// Tasks are listed newest first, up to the limit.
#[tokio::test]
async fn tasks_are_listed_newest_first() {
    for (_dir, store) in stores().await {
        let arguments = json!({});
        for id in ["task_a", "task_b", "task_c"] {
            store.create_task(&new_task(id, &arguments)).await.unwrap();
            // Creation times a millisecond apart at least.
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
        store
            .finish_task("task_b", TaskState::Failed, None, Some("it broke"))
            .await
            .unwrap();
        let listed: Vec<(String, TaskState)> = store
            .tasks(10)
            .await
            .unwrap()
            .into_iter()
            .map(|task| (task.id, task.state))
            .collect();
        assert_eq!(
            listed,
            vec![
                ("task_c".to_owned(), TaskState::Working),
                ("task_b".to_owned(), TaskState::Failed),
                ("task_a".to_owned(), TaskState::Working),
            ]
        );
        assert_eq!(store.tasks(1).await.unwrap().len(), 1);
    }
}

/// A stopping server lets go of its tasks: the next server takes them at
/// once, however patient its idea of a stale heartbeat.
#[tokio::test]
async fn released_tasks_are_claimed_at_once() {
    for database in databases().await {
        let arguments = json!({});
        let stopping = database.open(PATIENT).await;
        stopping
            .create_task(&new_task("task_left", &arguments))
            .await
            .unwrap();
        stopping
            .task_question("task_left", Some(&json!({"message": "Ship it?"})))
            .await
            .unwrap();
        let next = database.open(PATIENT).await;
        assert_eq!(next.claim_stale_tasks().await.unwrap(), Vec::new());
        assert_eq!(stopping.release_tasks().await.unwrap(), 1);
        let claimed: Vec<String> = next
            .claim_stale_tasks()
            .await
            .unwrap()
            .into_iter()
            .map(|task| task.id)
            .collect();
        assert_eq!(claimed, vec!["task_left".to_owned()]);
        // A question its stopped server held is gone with it.
        let claimed = next.task("task_left").await.unwrap().unwrap();
        assert_eq!(
            (claimed.state, claimed.question),
            (TaskState::Working, None)
        );
        // The server's task a claimed task's call became comes with it.
        next.task_handed_over("task_left", "srv-1").await.unwrap();
        let kept = next.task("task_left").await.unwrap().unwrap();
        assert_eq!(kept.handed_over.as_deref(), Some("srv-1"));
        // An ended task is not let go of again.
        next.finish_task("task_left", TaskState::Completed, None, None)
            .await
            .unwrap();
        assert_eq!(next.release_tasks().await.unwrap(), 0);
    }
}

/// A task whose server stopped beating is claimed by one other server;
/// a live server's beats keep its tasks its own.
#[tokio::test]
async fn a_stale_task_is_claimed_by_one_server_and_a_beating_one_by_none() {
    for database in databases().await {
        let arguments = json!({"seconds": 3});
        let gone = database.open(QUICK).await;
        gone.create_task(&new_task("task_gone", &arguments))
            .await
            .unwrap();
        let live = database.open(QUICK).await;
        live.create_task(&new_task("task_live", &arguments))
            .await
            .unwrap();
        drop(gone);
        let servers = [database.open(QUICK).await, database.open(QUICK).await];
        // Beat past the stale bound: only the task of the stopped server
        // goes stale.
        for _ in 0..5 {
            tokio::time::sleep(QUICK.heartbeat).await;
            live.beat_tasks().await.unwrap();
        }
        let (first, second) = tokio::join!(
            servers[0].claim_stale_tasks(),
            servers[1].claim_stale_tasks()
        );
        let mut claimed: Vec<String> = first
            .unwrap()
            .into_iter()
            .chain(second.unwrap())
            .map(|task| task.id)
            .collect();
        claimed.sort();
        assert_eq!(claimed, vec!["task_gone".to_owned()]);
        // Claimed, it is fresh again: nobody else takes it at once.
        assert_eq!(servers[0].claim_stale_tasks().await.unwrap(), Vec::new());
        let task = live.task("task_gone").await.unwrap().unwrap();
        assert_eq!(task.state, TaskState::Working);
        live.finish_task("task_gone", TaskState::Failed, None, Some(TASK_INTERRUPTED))
            .await
            .unwrap();
        let task = live.task("task_gone").await.unwrap().unwrap();
        assert_eq!(
            (task.state, task.error.as_deref()),
            (TaskState::Failed, Some("interrupted"))
        );
    }
}
