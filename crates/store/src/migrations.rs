//! The schema, as numbered steps applied in order and recorded in
//! `riverse_migrations`. A step is never edited once released: a change is a
//! new step.

/// `(version, SQL)`, oldest first.
pub(crate) const SQLITE: &[(u32, &str)] = &[
    (
        1,
        "CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE INDEX conversations_by_update ON conversations (updated_at DESC, id);
    CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        created_at INTEGER NOT NULL
    );
    CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
    CREATE TABLE tool_calls (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        params TEXT NOT NULL,
        success INTEGER,
        data TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        duration_ms INTEGER,
        UNIQUE (message_id, call_id)
    );
    CREATE INDEX tool_calls_by_message ON tool_calls (message_id, seq);",
    ),
    (2, SQLITE_OWNERS),
    (3, FAILURE_KINDS),
    (4, CALL_CONTENT),
    (5, CALL_APPROVAL),
    (6, SQLITE_RESPONSES),
    (7, HANDED_BACK),
    (8, SQLITE_CALL_RECORDS),
    (9, ANSWER_SKILLS),
    (10, SCHEDULE_RUNS),
    (11, TASKS),
    (12, TASK_HANDED_OVER),
];

/// Step 2: who owns a running answer, and when it last showed it is alive.
/// Answers already running get the time of the upgrade as their heartbeat,
/// so a server of the previous version has the stale bound to finish them.
const SQLITE_OWNERS: &str = "ALTER TABLE messages ADD COLUMN owner TEXT;
    ALTER TABLE messages ADD COLUMN heartbeat_at INTEGER;
    UPDATE messages SET heartbeat_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
        WHERE status = 'running';
    CREATE INDEX messages_running ON messages (heartbeat_at) WHERE status = 'running';";

/// The same schema for PostgreSQL.
pub(crate) const POSTGRES: &[(u32, &str)] = &[
    (
        1,
        "CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE INDEX conversations_by_update ON conversations (updated_at DESC, id);
    CREATE TABLE messages (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        created_at BIGINT NOT NULL
    );
    CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
    CREATE TABLE tool_calls (
        seq BIGSERIAL PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        params TEXT NOT NULL,
        success BOOLEAN,
        data TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        duration_ms BIGINT,
        UNIQUE (message_id, call_id)
    );
    CREATE INDEX tool_calls_by_message ON tool_calls (message_id, seq);",
    ),
    (2, POSTGRES_OWNERS),
    (3, FAILURE_KINDS),
    (4, CALL_CONTENT),
    (5, CALL_APPROVAL),
    (6, POSTGRES_RESPONSES),
    (7, HANDED_BACK),
    (8, POSTGRES_CALL_RECORDS),
    (9, ANSWER_SKILLS),
    (10, SCHEDULE_RUNS),
    (11, TASKS),
    (12, TASK_HANDED_OVER),
];

/// Step 2 for PostgreSQL. Heartbeats are the database's clock, so servers
/// whose clocks disagree still agree on which answers are stale.
const POSTGRES_OWNERS: &str = "ALTER TABLE messages ADD COLUMN owner TEXT;
    ALTER TABLE messages ADD COLUMN heartbeat_at BIGINT;
    UPDATE messages SET heartbeat_at = (EXTRACT(EPOCH FROM now()) * 1000)::BIGINT
        WHERE status = 'running';
    CREATE INDEX messages_running ON messages (heartbeat_at) WHERE status = 'running';";

/// Step 3, the same in both: why a failed call failed, as a
/// `riverse_tool::FailureKind` name (`timeout`, `tool_error`, …). Calls stored
/// before it have none; a reader takes a failure without one for a tool error.
const FAILURE_KINDS: &str = "ALTER TABLE tool_calls ADD COLUMN failure TEXT;";

/// Step 4, the same in both: what a call said and gave beside its data, as
/// JSON arrays: `content`, its `riverse_tool::Content` blocks (images, audio,
/// files; 16 MiB at most, `riverse_tool::CallLimits::max_content_bytes`), and
/// `logs`, the `riverse_tool::LogLine`s it logged (at most 1000 of 4 KB).
/// Either is NULL when there were none, and for calls stored before it.
const CALL_CONTENT: &str = "ALTER TABLE tool_calls ADD COLUMN content TEXT;
    ALTER TABLE tool_calls ADD COLUMN logs TEXT;";

/// Step 5, the same in both: how a call's approval went, as the JSON of a
/// `riverse_tool::CallApproval`: pending (with the question its answer is posted to)
/// while the call waits for a yes, then the decision and the rule that
/// asked. NULL for calls no approval touched, and for calls stored before it.
const CALL_APPROVAL: &str = "ALTER TABLE tool_calls ADD COLUMN approval TEXT;";

/// Step 6: the responses of `/v1/responses`, kept for `GET` and for the
/// requests that go on from them (`previous_response_id`). `response` is the
/// response object's JSON; `items` the conversation up to and including its
/// output, as a JSON array of Responses input items; `created_at` is in
/// seconds, as the object says it.
/// Step 7, the same in both: Riverse's own calls and results of a
/// `/v1/chat/completions` turn that handed calls of the client's tools back,
/// as a JSON array, under the id of the first call handed back, for the
/// request that answers it (`Store::keep_handed_back`). Kept an hour.
const HANDED_BACK: &str = "CREATE TABLE handed_back (
        call_id TEXT PRIMARY KEY,
        created_at BIGINT NOT NULL,
        messages TEXT NOT NULL
    );
    CREATE INDEX handed_back_by_age ON handed_back (created_at);";

const SQLITE_RESPONSES: &str = "CREATE TABLE responses (
        id TEXT PRIMARY KEY,
        previous_id TEXT,
        created_at INTEGER NOT NULL,
        response TEXT NOT NULL,
        items TEXT NOT NULL
    );";

/// Step 6 for PostgreSQL.
const POSTGRES_RESPONSES: &str = "CREATE TABLE responses (
        id TEXT PRIMARY KEY,
        previous_id TEXT,
        created_at BIGINT NOT NULL,
        response TEXT NOT NULL,
        items TEXT NOT NULL
    );";

/// Step 8: each call kept whole as the JSON of one `riverse_tool::CallRecord`
/// (`record`), in place of the columns added one by one (steps 1, 3, 4, 5).
/// Calls stored before it are written into records as the readers of those
/// columns read them: a failed call without a kind is a tool error, a list
/// column left NULL is empty. A server of an earlier version can't use the
/// table after it: stop them all before the first server of this one starts.
const SQLITE_CALL_RECORDS: &str =
    "ALTER TABLE tool_calls ADD COLUMN record TEXT NOT NULL DEFAULT '{}';
    UPDATE tool_calls SET record = json_object(
        'call_id', call_id,
        'tool', tool,
        'params', CASE WHEN json_valid(params) THEN json(params) ELSE params END,
        'success', CASE success WHEN 1 THEN json('true') WHEN 0 THEN json('false') END,
        'data', data,
        'error', error,
        'failure', CASE WHEN success = 0 THEN COALESCE(failure, 'tool_error') END,
        'content', CASE WHEN json_valid(content) THEN json(content) ELSE json('[]') END,
        'logs', CASE WHEN json_valid(logs) THEN json(logs) ELSE json('[]') END,
        'approval', CASE WHEN json_valid(approval) THEN json(approval) END,
        'duration_ms', duration_ms);
    ALTER TABLE tool_calls DROP COLUMN tool;
    ALTER TABLE tool_calls DROP COLUMN params;
    ALTER TABLE tool_calls DROP COLUMN success;
    ALTER TABLE tool_calls DROP COLUMN data;
    ALTER TABLE tool_calls DROP COLUMN error;
    ALTER TABLE tool_calls DROP COLUMN duration_ms;
    ALTER TABLE tool_calls DROP COLUMN failure;
    ALTER TABLE tool_calls DROP COLUMN content;
    ALTER TABLE tool_calls DROP COLUMN logs;
    ALTER TABLE tool_calls DROP COLUMN approval;";

/// Step 8 for PostgreSQL.
const POSTGRES_CALL_RECORDS: &str =
    "ALTER TABLE tool_calls ADD COLUMN record TEXT NOT NULL DEFAULT '{}';
    UPDATE tool_calls SET record = json_build_object(
        'call_id', call_id,
        'tool', tool,
        'params', params::json,
        'success', success,
        'data', data,
        'error', error,
        'failure', CASE WHEN success = FALSE THEN COALESCE(failure, 'tool_error') END,
        'content', COALESCE(content, '[]')::json,
        'logs', COALESCE(logs, '[]')::json,
        'approval', approval::json,
        'duration_ms', duration_ms)::text;
    ALTER TABLE tool_calls DROP COLUMN tool, DROP COLUMN params, DROP COLUMN success,
        DROP COLUMN data, DROP COLUMN error, DROP COLUMN duration_ms, DROP COLUMN failure,
        DROP COLUMN content, DROP COLUMN logs, DROP COLUMN approval;";

/// Step 9, the same in both: the skills an answer's turn applied, as a JSON
/// array of `{"name", "trigger", "run"?}` objects in the order they applied.
/// NULL when none applied, and for answers stored before it.
const ANSWER_SKILLS: &str = "ALTER TABLE messages ADD COLUMN skills TEXT;";

/// Step 10, the same in both: schedules. `conversations.schedule` names the
/// schedule a conversation belongs to (one each). `schedule_runs` holds a
/// row per run: `slot` is the tick's time in milliseconds for a run at its
/// time (so a tick is claimed once, by the first server to insert it), or
/// `now:` and the run's id for one run on request; `status` is `running`,
/// `done`, `failed` or `skipped`, a running row kept alive by its server as
/// an answer is (`owner`, `heartbeat_at`). `schedule_marks` holds, for each
/// schedule, the time up to which a server has looked for its ticks: what a
/// server starting later catches up from.
const SCHEDULE_RUNS: &str = "ALTER TABLE conversations ADD COLUMN schedule TEXT;
    CREATE UNIQUE INDEX conversations_by_schedule ON conversations (schedule)
        WHERE schedule IS NOT NULL;
    CREATE TABLE schedule_runs (
        id TEXT PRIMARY KEY,
        schedule TEXT NOT NULL,
        slot TEXT NOT NULL,
        tick BIGINT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        conversation_id TEXT,
        message_id TEXT,
        owner TEXT,
        heartbeat_at BIGINT,
        started_at BIGINT NOT NULL,
        ended_at BIGINT,
        UNIQUE (schedule, slot)
    );
    CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule, started_at DESC);
    CREATE INDEX schedule_runs_running ON schedule_runs (heartbeat_at) WHERE status = 'running';
    CREATE TABLE schedule_marks (
        schedule TEXT PRIMARY KEY,
        seen_until BIGINT NOT NULL
    );";

/// Step 11, the same in both: background tasks (`tasks`). `state` is
/// `working`, `input_required`, `completed`, `failed` or `cancelled`; an
/// unended task is kept alive by its server as an answer is (`owner`,
/// `heartbeat_at`); `arguments`, `progress` and `result` are JSON text.
const TASKS: &str = "CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        conversation_id TEXT,
        message_id TEXT,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        state TEXT NOT NULL,
        progress TEXT,
        result TEXT,
        error TEXT,
        owner TEXT,
        heartbeat_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        ended_at BIGINT
    );
    CREATE INDEX tasks_by_creation ON tasks (created_at DESC, id);
    CREATE INDEX tasks_unended ON tasks (heartbeat_at)
        WHERE state IN ('working', 'input_required');";

/// Step 12, the same in both: the id of the task of an MCP server that a
/// task's call became, so that a server taking the task over asks that
/// server about it again; the question an `input_required` task waits on
/// (JSON text).
const TASK_HANDED_OVER: &str = "ALTER TABLE tasks ADD COLUMN handed_over TEXT;
    ALTER TABLE tasks ADD COLUMN question TEXT;";
