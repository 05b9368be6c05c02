"""Receives OTLP/HTTP protobuf traces on 127.0.0.1:4318 and writes them as JSON to spans.json."""
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as pb

spans = []

def value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = pb.ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    spans.append({
                        "name": span.name, "id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                        "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                        "status": span.status.code,
                        "attributes": {a.key: value(a.value) for a in span.attributes},
                    })
        json.dump(spans, open("spans.json", "w"), indent=1)
        reply = pb.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *args):
        pass

HTTPServer(("127.0.0.1", 4318), Handler).serve_forever()
