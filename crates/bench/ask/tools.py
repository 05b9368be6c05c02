"""Five offline tools that, with the three `riverse init` writes, make the
eight-tool project `bench.sh` times `riverse ask` on. Their results are
fixed: the bench measures Riverse, not the tools."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class WebSearchTool(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="web_search",
            description="Search the web and return the top results",
            parameters={"query": "What to search for"},
            examples=["Search the web for rust async tutorials", "ネットで東京の人口を調べて"],
        )

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(success=True, data=f"Top results for {params.get('query')!r}: example.org")


class CalculatorTool(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="calculator",
            description="Evaluate an arithmetic expression",
            parameters={"expression": "The expression, e.g. 12 * (3 + 4)"},
            examples=["What is 12 * (3 + 4)?", "256を8で割ると？"],
        )

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(success=True, data="437")


class TranslateTool(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="translate",
            description="Translate text into another language",
            parameters={"text": "The text to translate", "target_language": "The language to translate into"},
            examples=["Translate 'good morning' into French", "「ありがとう」を英語に翻訳して"],
        )

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(success=True, data="Bonjour")


class ReadFileTool(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="read_file",
            description="Read a text file of the project",
            parameters={"path": "The file's path, e.g. notes/todo.txt"},
            examples=["Show me notes/todo.txt", "README.mdを読んで"],
        )

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(success=True, data="buy milk")


class ReminderTool(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="reminder",
            description="Set a reminder for a task at a time",
            parameters={"text": "What to be reminded of", "time": "When, e.g. 6pm"},
            examples=["Remind me to call mom at 6pm", "明日の9時に会議をリマインドして"],
        )

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(success=True, data=f"Reminder set: {params.get('text')} at {params.get('time')}")
