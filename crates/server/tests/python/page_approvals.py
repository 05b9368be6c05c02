"""Drives the chat page of `riverse serve` in headless Chromium through a tool
whose approval is `ask`: the first call is approved with the card's Approve
button, the second refused with its Deny button.

A third call is
approved from the page opened again while it waits: the stored call brings
its buttons back.

Usage: page_approvals.py URL OUT_DIR APPROVED DENIED REOPENED; the tool writes
the marker file its call names (these three). Prints one JSON document of what it
saw and saves screenshots in OUT_DIR (asked.png: the card's buttons;
decided.png: both cards once decided). Assertions that fail raise, so the
script exits non-zero with the reason.
"""

import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from browser import chromium, open_chat

url, out_dir, approved_marker, denied_marker, reopened_marker = sys.argv[1:6]
os.makedirs(out_dir, exist_ok=True)

seen = {}

with chromium() as driver:
    wait, css, box = open_chat(driver, url, "mark")

    box.send_keys("Mark it")
    box.send_keys(Keys.ENTER)
    form = wait.until(lambda d: css(".card.running form.question.approval"))[0]
    seen["asked"] = {
        "text": form.find_element(By.CSS_SELECTOR, ".ask").text,
        "buttons": [[b.get_attribute("class"), b.text] for b in form.find_elements(By.CSS_SELECTOR, "button")],
        "ran_before_approving": os.path.exists(approved_marker),
    }
    driver.save_screenshot(os.path.join(out_dir, "asked.png"))
    form.find_element(By.CSS_SELECTOR, "button.approve").click()
    wait.until(lambda d: len(css(".card.ok")) == 1)
    wait.until(lambda d: "Marked." in css(".message.assistant .text")[-1].text)
    card = css(".card.ok")[0]
    seen["approved"] = {
        "ran": os.path.exists(approved_marker),
        "forms_left": len(css("form.question")),
        "decision": card.find_element(By.CSS_SELECTOR, "div.approval-decision").text,
        "result": card.find_element(By.CSS_SELECTOR, "pre.result").text,
    }

    box.send_keys("Mark it again")
    box.send_keys(Keys.ENTER)
    form = wait.until(lambda d: css(".card.running form.question.approval"))[0]
    form.find_element(By.CSS_SELECTOR, "button.deny").click()
    wait.until(lambda d: len(css(".card.failed")) == 1)
    wait.until(lambda d: "Not marked." in css(".message.assistant .text")[-1].text)
    card = css(".card.failed")[0]
    kind = card.find_element(By.CSS_SELECTOR, "span.kind")
    seen["denied"] = {
        "ran": os.path.exists(denied_marker),
        "forms_left": len(css("form.question")),
        "kind": [kind.get_attribute("data-kind"), kind.text],
        "error": card.find_element(By.CSS_SELECTOR, "pre.error").text,
        "decision": card.find_element(By.CSS_SELECTOR, "div.approval-decision").text,
    }
    driver.save_screenshot(os.path.join(out_dir, "decided.png"))

    driver.refresh()
    wait.until(lambda d: len(css(".message")) == 4 and len(css(".card.ok")) == 1 and len(css(".card.failed")) == 1)
    seen["after_reload"] = {
        "decisions": [d.text for d in css(".card div.approval-decision")],
        "forms": len(css("form.question")),
    }

    box = wait.until(lambda d: d.find_element(By.ID, "input"))
    box.send_keys("Mark a third")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: css(".card.running form.question.approval"))
    driver.refresh()
    form = wait.until(lambda d: css(".card form.question.approval"))[0]
    seen["reopened"] = {"text": form.find_element(By.CSS_SELECTOR, ".ask").text,
                        "ran_before_approving": os.path.exists(reopened_marker)}
    form.find_element(By.CSS_SELECTOR, "button.approve").click()
    # Nothing streams to this page: it reads the stored answer once the turn is over.
    WebDriverWait(driver, 30).until(lambda d: os.path.exists(reopened_marker))
    for _ in range(60):
        driver.refresh()
        try:
            WebDriverWait(driver, 1).until(lambda d: len(css(".card.ok")) == 2)
            break
        except Exception:
            pass
    seen["reopened"]["ran"] = os.path.exists(reopened_marker)
    seen["reopened"]["decisions"] = [d.text for d in css(".card div.approval-decision")]
    seen["reopened"]["forms"] = len(css("form.question"))
print(json.dumps(seen, ensure_ascii=False))
