"""The conformance suite's tools-call-embedded-resource: one text resource."""

from agent.tools import BaseTool, Resource, ToolManifest, ToolResult


class EmbeddedResource(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_embedded_resource", description="Returns an embedded text resource", parameters={})

    def execute(self, params):
        resource = Resource("test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain")
        return ToolResult(True, "", content=[resource])
