//! Built-in prompts, and the words tool results reach the model in, in each
//! `language`. Tool data (names, descriptions, JSON) is never translated.

use riverse_tool::ToolManifest;

use crate::Language;

/// The most examples of one tool the dispatcher prompt shows: more cost
/// tokens without helping a model pick.
const MAX_DISPATCHER_EXAMPLES: usize = 3;

/// The system prompt when the model calls tools itself.
pub(crate) fn system(language: Language) -> &'static str {
    match language {
        Language::En => {
            "You are Riverse, a helpful assistant. You can call tools to look things up or to act. \
             Call a tool only when it helps to answer, with the parameters it describes. \
             When a tool fails, say so plainly and explain what went wrong. \
             Answer in the language the user writes in."
        }
        Language::Ja => {
            "あなたは Riverse という有能なアシスタントです。情報を調べたり操作したりするためにツールを呼び出せます。\
             回答に役立つときだけ、説明どおりのパラメーターでツールを呼び出してください。\
             ツールが失敗したときは、そのことをはっきり伝え、何が起きたかを説明してください。\
             ユーザーが書いた言語で答えてください。"
        }
        Language::Zh => {
            "你是 Riverse，一个乐于助人的助手。你可以调用工具来查询信息或执行操作。\
             只在有助于回答时调用工具，并按照工具的说明提供参数。\
             工具失败时，请如实说明，并解释出了什么问题。\
             请使用用户所用的语言回答。"
        }
    }
}

/// What a skill's steps produced, as the turn's system prompt carries it.
pub(crate) fn skill_output(language: Language, output: &str) -> String {
    let intro = match language {
        Language::En => "The skill's steps ran before this turn. What they produced:",
        Language::Ja => "このターンの前にスキルの手順が実行されました。その結果:",
        Language::Zh => "本轮之前已执行技能的步骤。其结果：",
    };
    format!("{intro}\n{output}")
}

/// The system prompt of the answer call in dispatcher mode, where the model
/// cannot call tools and results arrive as a message.
pub(crate) fn answer_system(language: Language) -> &'static str {
    match language {
        Language::En => {
            "You are Riverse, a helpful assistant. When tool results are given, base your answer on them; \
             when a tool failed, say so plainly and explain what went wrong. \
             Answer in the language the user writes in."
        }
        Language::Ja => {
            "あなたは Riverse という有能なアシスタントです。ツールの結果が与えられたときは、それに基づいて答えてください。\
             ツールが失敗したときは、そのことをはっきり伝え、何が起きたかを説明してください。\
             ユーザーが書いた言語で答えてください。"
        }
        Language::Zh => {
            "你是 Riverse，一个乐于助人的助手。如果提供了工具结果，请根据结果回答；\
             工具失败时，请如实说明，并解释出了什么问题。\
             请使用用户所用的语言回答。"
        }
    }
}

/// The routing prompt: every tool with its parameters and a few examples,
/// and the reply format the parser expects.
pub(crate) fn dispatcher(language: Language, tools: &[ToolManifest]) -> String {
    let (intro, parameters_label, examples_label, rules) = match language {
        Language::En => (
            "You decide which tools answer the user's last message. The tools:",
            "parameters",
            "examples",
            "If no tool is needed, reply with exactly NONE. Otherwise reply with only a JSON array of calls, \
             nothing else, like this:\n[{\"tool\": \"TOOL_NAME\", \"params\": {\"PARAMETER\": \"VALUE\"}}]\n\
             Use only the tools and parameters listed above. Do not answer the message yourself.",
        ),
        Language::Ja => (
            "ユーザーの最後のメッセージに答えるために、どのツールを呼び出すかを決めてください。ツール一覧:",
            "パラメーター",
            "例",
            "ツールが不要なら NONE とだけ返してください。必要なら、次のような呼び出しの JSON 配列だけを返し、\
             ほかには何も書かないでください:\n[{\"tool\": \"TOOL_NAME\", \"params\": {\"PARAMETER\": \"VALUE\"}}]\n\
             上に挙げたツールとパラメーターだけを使ってください。メッセージそのものには答えないでください。",
        ),
        Language::Zh => (
            "请判断应调用哪些工具来回答用户的最后一条消息。工具列表：",
            "参数",
            "示例",
            "如果不需要工具，只回复 NONE。否则只回复一个调用的 JSON 数组，不要写其他内容，例如：\n\
             [{\"tool\": \"TOOL_NAME\", \"params\": {\"PARAMETER\": \"VALUE\"}}]\n\
             只能使用上面列出的工具和参数。不要直接回答这条消息。",
        ),
    };
    let mut prompt = format!("{intro}\n\n");
    for tool in tools {
        prompt.push_str(&format!("- {}: {}\n", tool.name, tool.description.trim()));
        if !tool.parameters.is_empty() {
            let parameters: Vec<String> = tool
                .parameters
                .iter()
                .map(|(name, text)| format!("{name} ({}): {text}", tool.type_label(name)))
                .collect();
            prompt.push_str(&format!(
                "  {parameters_label}: {}\n",
                parameters.join("; ")
            ));
        }
        if !tool.examples.is_empty() {
            let examples: Vec<String> = tool
                .examples
                .iter()
                .take(MAX_DISPATCHER_EXAMPLES)
                .map(|example| format!("\"{example}\""))
                .collect();
            prompt.push_str(&format!("  {examples_label}: {}\n", examples.join(", ")));
        }
    }
    prompt.push('\n');
    prompt.push_str(rules);
    prompt
}

/// In dispatcher mode, what the tools returned, for the answer call.
pub(crate) fn dispatched_results(language: Language, results: &[(String, String)]) -> String {
    let (intro, outro) = match language {
        Language::En => (
            "Tools were called for the user's last message. Their results:",
            "Answer the user's message with these results.",
        ),
        Language::Ja => (
            "ユーザーの最後のメッセージのためにツールを呼び出しました。結果:",
            "これらの結果を使ってユーザーのメッセージに答えてください。",
        ),
        Language::Zh => (
            "已为用户的最后一条消息调用了工具。结果：",
            "请根据这些结果回答用户的消息。",
        ),
    };
    let mut text = format!("{intro}\n\n");
    for (call, content) in results {
        text.push_str(&format!("[{call}]\n{content}\n\n"));
    }
    text.push_str(outro);
    text
}

/// What the model reads for a failed call.
pub(crate) fn tool_failed(language: Language, tool: &str, error: &str) -> String {
    match language {
        Language::En => format!("tool {tool} failed: {error}"),
        Language::Ja => format!("ツール {tool} は失敗しました: {error}"),
        Language::Zh => format!("工具 {tool} 执行失败：{error}"),
    }
}

/// For a call past `agent.max_tool_calls`.
pub(crate) fn not_run(language: Language, max_tool_calls: usize) -> String {
    match language {
        Language::En => {
            format!("not run: the limit of {max_tool_calls} tool calls for one message was reached")
        }
        Language::Ja => format!(
            "実行されませんでした: 1 つのメッセージで呼び出せるツールの上限 ({max_tool_calls} 回) に達しました"
        ),
        Language::Zh => format!("未执行：已达到每条消息最多 {max_tool_calls} 次工具调用的上限"),
    }
}

/// Sent, without tools, when a limit stops the loop.
pub(crate) fn limit_reached(language: Language) -> &'static str {
    match language {
        Language::En => {
            "The limit of tool calls for this message has been reached. \
             Answer now with what you have, without calling more tools."
        }
        Language::Ja => {
            "このメッセージで呼び出せるツールの上限に達しました。これ以上ツールを呼び出さず、今ある情報で答えてください。"
        }
        Language::Zh => "本条消息的工具调用次数已达上限。请不要再调用工具，直接根据现有信息回答。",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_dispatcher_prompt_lists_tools_with_typed_parameters_and_three_examples() {
        let tool: ToolManifest = serde_json::from_value(json!({
            "name": "weather", "description": "Get the weather",
            "parameters": {"city": "City name", "days": "How many days"},
            "parameter_types": {"days": "int"},
            "examples": ["a", "b", "c", "d"]
        }))
        .unwrap();
        let prompt = dispatcher(Language::En, &[tool]);
        assert!(prompt.contains(
            "- weather: Get the weather\n  parameters: city (string): City name; days (integer): How many days\n  examples: \"a\", \"b\", \"c\"\n"
        ), "{prompt}");
        assert!(prompt.contains("NONE"));
    }

    #[test]
    fn every_language_has_its_own_words() {
        assert_eq!(
            tool_failed(Language::En, "w", "boom"),
            "tool w failed: boom"
        );
        assert_eq!(
            tool_failed(Language::Ja, "w", "boom"),
            "ツール w は失敗しました: boom"
        );
        assert_eq!(
            tool_failed(Language::Zh, "w", "boom"),
            "工具 w 执行失败：boom"
        );
        assert_ne!(system(Language::Ja), system(Language::En));
        assert_ne!(system(Language::Zh), system(Language::Ja));
    }
}
