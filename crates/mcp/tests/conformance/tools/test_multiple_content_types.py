"""The conformance suite's tools-call-mixed-content: text, an image, a resource."""

from agent.tools import BaseTool, Image, Resource, ToolManifest, ToolResult

from agent.tools._samples import RED_PIXEL_PNG


class MultipleContentTypes(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_multiple_content_types", description="Returns text, an image and a resource", parameters={})

    def execute(self, params):
        return ToolResult(True, "Multiple content types test:", content=[
            Image(RED_PIXEL_PNG, "image/png"),
            Resource("test://mixed-content-resource", text='{"test":"data","value":123}', mime_type="application/json"),
        ])
