"""Drives `riverse serve` with the official openai package, as any program would.

Usage: openai_client.py BASE_URL KEY MODE; prints one JSON document.
MODE `chat`: lists models, asks once without streaming and once streaming.
MODE `rejected`: expects the key to be refused.
MODE `stopping`: asks twice at once, streaming and not, and prints the
error each one ended with (the server is stopped meanwhile).
"""

import json
import sys

import openai

base_url, key, mode = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=60)

if mode == "chat":
    models = [model.id for model in client.models.list()]
    full = client.chat.completions.create(
        model="riverse", messages=[{"role": "user", "content": "Weather in Tokyo?"}]
    )
    stream = client.chat.completions.create(
        model="anything",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        stream=True,
    )
    pieces, finish, objects = [], None, set()
    for chunk in stream:
        objects.add(chunk.object)
        for choice in chunk.choices:
            if choice.delta.content:
                pieces.append(choice.delta.content)
            if choice.finish_reason:
                finish = choice.finish_reason
    print(json.dumps({
        "models": models,
        "answer": full.choices[0].message.content,
        "finish_reason": full.choices[0].finish_reason,
        "streamed": "".join(pieces),
        "stream_finish_reason": finish,
        "chunk_objects": sorted(objects),
    }))
elif mode == "rejected":
    try:
        client.chat.completions.create(
            model="riverse", messages=[{"role": "user", "content": "hi"}]
        )
        print(json.dumps({"rejected": False}))
    except openai.AuthenticationError as err:
        print(json.dumps({"rejected": True, "status": err.status_code, "code": err.code}))
elif mode == "stopping":
    import threading

    ended = {}

    def caught(err):
        return {"class": type(err).__name__, "message": err.message, "type": err.type,
                "code": err.code, "status": getattr(err, "status_code", None)}

    def whole():
        try:
            client.chat.completions.create(
                model="riverse", messages=[{"role": "user", "content": "sleep"}]
            )
            ended["whole"] = None
        except openai.APIError as err:
            ended["whole"] = caught(err)

    def streamed():
        try:
            for _ in client.chat.completions.create(
                model="riverse", messages=[{"role": "user", "content": "sleep"}], stream=True
            ):
                pass
            ended["streamed"] = None
        except openai.APIError as err:
            ended["streamed"] = caught(err)

    threads = [threading.Thread(target=whole), threading.Thread(target=streamed)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps(ended))
else:
    sys.exit(f"unknown mode {mode}")
