"""The conformance suite's tools-call-audio: one WAV, no text."""

from agent.tools import Audio, BaseTool, ToolManifest, ToolResult

from agent.tools._samples import silent_wav


class AudioContent(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_audio_content", description="Returns a tenth of a second of silence", parameters={})

    def execute(self, params):
        return ToolResult(True, "", content=[Audio(silent_wav(), "audio/wav")])
