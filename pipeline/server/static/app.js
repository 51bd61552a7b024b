// The LoopAgent evidence page: ask, show the value and the cited sentence inside its block, feedback,
// documents and upload. Plain DOM, no build step; every document string is set as text, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const keyInput = $("api-key");
keyInput.value = localStorage.getItem("loopagent-key") || "";
keyInput.addEventListener("change", () => { localStorage.setItem("loopagent-key", keyInput.value); loadDocs(); });

function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (keyInput.value) h["X-API-Key"] = keyInput.value;
  return h;
}

async function api(method, path, body) {
  const opts = { method, headers: headers(body ? { "Content-Type": "application/json" } : {}) };
  if (body) opts.body = JSON.stringify(body);
  const resp = await fetch(path, opts);
  const data = await resp.json().catch(() => ({ error: { code: "HTTP" + resp.status, message: resp.statusText } }));
  if (!resp.ok) throw new Error((data.error && (data.error.code + "：" + data.error.message)) || resp.statusText);
  return data;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

const STATUS_ZH = { answered: "已作答", not_found: "未找到有依据的答案", ambiguous: "有分歧", navigation: "导航", error: "错误" };

// the normalised value in one short line (as the CLI's first line)
function valueText(v) {
  if (!v) return "";
  switch (v.kind) {
    case "range": return `${v.min ?? ""}–${v.max ?? ""}${v.unit || ""}`;
    case "list": return (v.items || []).map((i) => (i && typeof i === "object" ? (i.kind ? valueText(i) : JSON.stringify(i)) : String(i))).join("；");
    case "boolean": return v.value ? "是" : "否";
    case "date": return String(v.iso || v.text || "");
    default:
      // a duration of months reads 2个月 (2月 is February)
      if (v.number !== undefined && v.number !== null)
        return `${v.number}${v.kind === "duration" && v.unit === "月" ? "个月" : v.unit || (v.kind === "money" ? "元" : "")}`;
      return String(v.text || "");
  }
}

let current = null;  // the answer on screen

async function ask(ev) {
  ev.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  const body = { question };
  if ($("collection").value.trim()) body.collection = $("collection").value.trim();
  $("ask-button").disabled = true;
  $("ask-status").textContent = "正在查找依据…";
  $("ask-status").classList.remove("error");
  try {
    const ans = await api("POST", "/ask", body);
    $("ask-status").textContent = `用时 ${Math.round(ans.timings_ms.total || 0)} 毫秒`;
    await show(ans);
  } catch (e) {
    $("ask-status").textContent = e.message;
    $("ask-status").classList.add("error");
  } finally {
    $("ask-button").disabled = false;
  }
}

async function show(ans) {
  current = ans;
  $("result").hidden = false;
  const hasValue = ans.status === "answered" || ans.status === "ambiguous";  // ambiguous: the alternatives
  $("value").textContent = hasValue ? (valueText(ans.value) || ans.answer) : STATUS_ZH[ans.status];
  $("answer-status").textContent = STATUS_ZH[ans.status] || ans.status;
  $("answer-status").className = "badge " + ans.status;
  $("answer-text").textContent = ans.answer || "";
  $("method").textContent = ans.method || "—";
  $("confidence").textContent = (ans.confidence || 0).toFixed(2);
  $("trace-link").textContent = ans.trace_id;
  $("trace-link").href = "/trace/" + encodeURIComponent(ans.trace_id);
  const steps = $("reasoning");
  steps.replaceChildren(...(ans.reasoning || []).map((r) => el("li", null, r)));
  $("feedback-status").textContent = "";
  for (const b of document.querySelectorAll("#feedback button")) b.disabled = !ans.trace_id;
  const box = $("evidence");
  box.replaceChildren();
  if (!ans.evidence.length) box.append(el("p", "meta", "（无依据：宁可不答，也不给出没有依据的答案）"));
  for (const e of ans.evidence) box.append(await evidenceItem(e, ans.trace_id));
}

// one evidence item: where it is, then the whole block with the cited sentence marked
async function evidenceItem(e, traceId) {
  const item = el("div", "evidence-item");
  item.dataset.blockId = e.block_id;
  let block = null;
  try { block = await api("GET", "/blocks/" + encodeURIComponent(e.block_id)); } catch (err) { /* shown below */ }
  const where = [`《${e.title}》`, (e.section || []).join(" › ")];
  if (block && block.kind) where.push(`类型：${block.kind}`);
  if (block && block.version_date) where.push(`版本：${block.version_date}`);
  if (block && block.superseded_by) where.push("（已被新版本取代）");
  if (e.page) where.push(`第 ${e.page} 页`);
  where.push(e.source);
  item.append(el("div", "evidence-where", where.filter(Boolean).join(" · ")));
  const text = el("div", "block-text");
  const full = block ? block.text : e.text;
  let start = e.start, end = e.end;
  if (full.slice(start, end) !== e.text) {  // offsets from another version: find the sentence itself
    start = full.indexOf(e.text);
    end = start < 0 ? -1 : start + e.text.length;
  }
  if (start >= 0) {
    text.append(document.createTextNode(full.slice(0, start)));
    text.append(el("mark", "evidence", full.slice(start, end)));
    text.append(document.createTextNode(full.slice(end)));
  } else {
    text.append(el("mark", "evidence", e.text));
  }
  item.append(text);
  if (e.page) {  // the PDF page crop with the sentence highlighted
    try {
      const resp = await fetch(`/blocks/${encodeURIComponent(e.block_id)}/image?trace=${encodeURIComponent(traceId)}`,
                               { headers: headers() });
      if (resp.ok) {
        const img = el("img");
        img.alt = `第 ${e.page} 页原文截图`;
        img.src = URL.createObjectURL(await resp.blob());
        item.append(img);
      }
    } catch (err) { /* the text above is the evidence; the image is a convenience */ }
  }
  return item;
}

async function sendFeedback(ev) {
  if (!current) return;
  const verdict = ev.currentTarget.dataset.verdict;
  try {
    const r = await api("POST", "/feedback", { trace_id: current.trace_id, verdict });
    $("feedback-status").textContent = `已记录反馈（${verdict === "right" ? "答案正确" : "不准确"}，#${r.id}）`;
    for (const b of document.querySelectorAll("#feedback button")) b.disabled = true;
  } catch (e) {
    $("feedback-status").textContent = e.message;
  }
}

async function loadDocs() {
  const body = document.querySelector("#docs tbody");
  try {
    const history = $("docs-history").checked;
    const { documents } = await api("GET", "/documents" + (history ? "?history=true" : ""));
    body.replaceChildren(...documents.map((d) => {
      const tr = el("tr");
      const old = Boolean(d.superseded_at);
      if (!old) tr.dataset.docId = d.doc_id;
      const version = (d.version_date || "") + (old ? `（已被取代，${new Date(d.superseded_at * 1000).toLocaleDateString()}）` : "");
      for (const v of [d.title, d.source, d.kind, version, d.maturity ?? "—", d.n_blocks]) {
        tr.append(el("td", null, String(v)));
      }
      const td = el("td");
      if (old) { tr.append(td); tr.className = "superseded"; return tr; }
      const del = el("button", "small", "删除");
      del.addEventListener("click", async () => {
        if (!confirm(`删除《${d.title}》的所有版本？`)) return;
        try { await api("DELETE", "/documents/" + encodeURIComponent(d.doc_id)); loadDocs(); }
        catch (e) { $("upload-status").textContent = e.message; }
      });
      td.append(del);
      tr.append(td);
      return tr;
    }));
  } catch (e) {
    body.replaceChildren(el("tr", null, e.message));
  }
}

function upload(ev) {
  ev.preventDefault();
  const file = $("upload-file").files[0];
  if (!file) return;
  const form = new FormData();
  form.append("file", file);
  form.append("collection", $("upload-collection").value.trim() || "default");
  const xhr = new XMLHttpRequest();
  const bar = $("upload-progress");
  bar.hidden = false;
  bar.value = 0;
  $("upload-button").disabled = true;
  $("upload-status").textContent = "正在上传…";
  let ticker = null;  // the server ingests in one step: show how long it has been at it
  xhr.upload.onprogress = (e) => {
    if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
    if (e.loaded === e.total && !ticker) {
      const t0 = Date.now();
      bar.removeAttribute("value");  // an indeterminate bar while parsing and indexing
      ticker = setInterval(() => {
        $("upload-status").textContent = `已上传，正在解析和建立索引…（${Math.round((Date.now() - t0) / 1000)} 秒）`;
      }, 500);
    }
  };
  const done = () => { if (ticker) clearInterval(ticker); ticker = null; };
  xhr.addEventListener("loadend", done);
  xhr.onload = () => {
    done();
    $("upload-button").disabled = false;
    bar.hidden = true;
    let data = {};
    try { data = JSON.parse(xhr.responseText); } catch (e) { /* shown below */ }
    if (xhr.status >= 200 && xhr.status < 300) {
      const st = { added: "已导入", updated: "已更新（旧版本保留）", unchanged: "内容未变" }[data.status] || data.status;
      $("upload-status").textContent = `${st}：${data.source}，${data.blocks} 块，${data.seconds} 秒`
        + (data.maturity != null ? `，成熟度 ${data.maturity}` : "");
      loadDocs();
    } else {
      $("upload-status").textContent = data.error ? `${data.error.code}：${data.error.message}` : `HTTP ${xhr.status}`;
    }
  };
  xhr.onerror = () => { $("upload-button").disabled = false; $("upload-status").textContent = "上传失败（网络错误）"; };
  xhr.open("POST", "/documents");
  if (keyInput.value) xhr.setRequestHeader("X-API-Key", keyInput.value);
  xhr.send(form);
}

$("ask-form").addEventListener("submit", ask);
$("fb-right").addEventListener("click", sendFeedback);
$("fb-wrong").addEventListener("click", sendFeedback);
$("docs-refresh").addEventListener("click", loadDocs);
$("docs-history").addEventListener("change", loadDocs);
$("upload-form").addEventListener("submit", upload);
loadDocs();
