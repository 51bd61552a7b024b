# LoopAgent: `make demo` answers example questions over examples/docs; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
EXTRAS ?= test
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
DB ?= examples.sqlite

.PHONY: install demo test test-all test-slow clean

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

install: $(VENV)/bin/activate
	@# torch must be installed alone and pinned (a CPU wheel; any other spec pulls CUDA builds)
	@if echo "$(EXTRAS)" | grep -qE 'llm|eval'; then $(PIP) install -q torch==2.13.0; fi
	$(PIP) install -q -e ".[$(EXTRAS)]"

demo: install
	$(VENV)/bin/loopagent ingest examples/docs --db $(DB)
	$(VENV)/bin/loopagent ask --db $(DB) "劳动合同期限一年以上不满三年的，试用期最长多久？"
	$(VENV)/bin/loopagent ask --db $(DB) "职工累计工作已满10年不满20年的，每年年休假几天？"
	$(VENV)/bin/loopagent ask --db $(DB) "用人单位违反规定不办理住房公积金缴存登记，逾期不办理的，罚款多少？"
	$(VENV)/bin/loopagent ask --db $(DB) "2024年上海市的月最低工资标准是多少元？" || true

test: install
	$(PY) -m pytest

test-all:
	$(MAKE) test EXTRAS=test,llm,eval,embed

test-slow: install
	$(PY) -m pytest -m slow

clean:
	rm -rf $(VENV) $(DB) *.audit.jsonl .pytest_cache
