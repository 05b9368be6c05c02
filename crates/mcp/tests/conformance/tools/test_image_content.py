"""The conformance suite's tools-call-image: one PNG, no text."""

from agent.tools import BaseTool, Image, ToolManifest, ToolResult

from agent.tools._samples import RED_PIXEL_PNG


class ImageContent(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_image_content", description="Returns a 1x1 red PNG", parameters={})

    def execute(self, params):
        return ToolResult(True, "", content=[Image(RED_PIXEL_PNG, "image/png")])
