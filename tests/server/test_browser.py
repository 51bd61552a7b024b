"""The evidence page in headless Chromium (Debian's chromium + chromium-driver, driven by Selenium):
ask, find the cited sentence highlighted inside its block, click feedback, upload a file.

A screenshot is saved to $LOOPAGENT_ARTEFACTS (default: artefacts/ in the checkout). Under CI=true a
missing browser fails the test instead of skipping it (.ci/run installs it).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tests.server.conftest import need

CHROMIUM = Path(os.environ.get("LOOPAGENT_CHROMIUM", "/usr/bin/chromium"))
DRIVER = Path(os.environ.get("LOOPAGENT_CHROMEDRIVER", "/usr/bin/chromedriver"))
PROBATION = "劳动合同期限一年以上不满三年的，试用期最长多久？"
PROBATION_TEXT = "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"


@pytest.fixture()
def browser(tmp_path):
    need("selenium")
    if not (CHROMIUM.exists() and DRIVER.exists()):
        why = f"{CHROMIUM} or {DRIVER} missing: `apt-get install chromium chromium-driver` (.ci/run does)"
        pytest.fail(why) if os.environ.get("CI") == "true" else pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1600", "--lang=zh-CN"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def artefacts() -> Path:
    d = Path(os.environ.get("LOOPAGENT_ARTEFACTS") or ROOT / "artefacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


def test_page_asks_highlights_evidence_and_takes_feedback(live, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    wait = WebDriverWait(browser, 30)
    browser.get(live.url + "/")
    key = browser.find_element(By.ID, "api-key")
    key.send_keys(live.key, Keys.TAB)  # change event: stored and the document list reloads with the key
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#docs tbody tr[data-doc-id]")) == 2)

    browser.find_element(By.ID, "question").send_keys(PROBATION)
    browser.find_element(By.ID, "ask-button").click()
    mark = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#evidence mark.evidence")))
    assert mark.text == PROBATION_TEXT
    block = mark.find_element(By.XPATH, "..")
    stored = live.app.state.service.kb.store.block(
        browser.find_element(By.CSS_SELECTOR, ".evidence-item").get_attribute("data-block-id"))
    assert block.text == stored.text.strip()  # the whole block, the sentence marked inside it
    where = browser.find_element(By.CSS_SELECTOR, ".evidence-where").text
    assert "《中华人民共和国劳动合同法》" in where and "第二章 劳动合同的订立 › 第十九条" in where
    assert browser.find_element(By.ID, "value").text == "2个月"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#reasoning li")) >= 4
    trace_id = browser.find_element(By.ID, "trace-link").text
    browser.save_screenshot(str(artefacts() / "evidence_page.png"))

    browser.find_element(By.ID, "fb-right").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "feedback-status"), "已记录反馈"))
    rows = live.app.state.service.kb.store.feedback()
    assert (rows[-1]["trace_id"], rows[-1]["verdict"]) == (trace_id, "right")

    doc = tmp_path / "女职工劳动保护特别规定(2012-04-28).md"
    shutil.copy(EXAMPLES / doc.name, doc)
    browser.find_element(By.ID, "upload-file").send_keys(str(doc))
    browser.find_element(By.ID, "upload-button").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "upload-status"), "已导入"))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#docs tbody tr[data-doc-id]")) == 3)
    browser.save_screenshot(str(artefacts() / "documents_after_upload.png"))


def test_page_shows_the_pdf_page_crop(live, browser):
    """A PDF uploaded through the page: its answer shows the page number and the page crop image."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    wait = WebDriverWait(browser, 60)
    browser.get(live.url + "/")
    browser.find_element(By.ID, "api-key").send_keys(live.key, Keys.TAB)
    pdf = ROOT / "tests" / "data" / "pdf" / "structured_handbook.pdf"
    browser.find_element(By.ID, "upload-file").send_keys(str(pdf))
    browser.find_element(By.ID, "upload-button").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "upload-status"), "已导入：structured_handbook.pdf"))
    browser.find_element(By.ID, "question").send_keys("本手册自什么时候起施行？")
    browser.find_element(By.ID, "ask-button").click()
    img = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".evidence-item img")))
    wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img))
    assert browser.find_element(By.ID, "value").text == "2024-01-01"
    assert browser.find_element(By.CSS_SELECTOR, "#evidence mark.evidence").text == "本手册自2024年1月1日起施行。"
    assert "第 3 页" in browser.find_element(By.CSS_SELECTOR, ".evidence-where").text
    assert img.get_attribute("alt") == "第 3 页原文截图" and browser.execute_script(
        "return arguments[0].naturalWidth", img) > 300
    browser.save_screenshot(str(artefacts() / "pdf_evidence.png"))
