#!/usr/bin/env python3
"""Tests scripts/check_layers.py: in a small tree laid out like the repository,
under the repository's own scripts/layers.json, a clean tree passes and each
kind of forbidden include, planted alone, is reported (a ctest test).

    python3 scripts/check_layers_test.py
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_layers  # noqa: E402

# A clean tree: every file includes only what layers.json allows it.
CLEAN = {
    "include/inferd/base/status.h": "",
    "include/inferd/abi_common.h": "",
    "include/inferd/inference.h": '#include "inferd/abi_common.h"\n',
    "include/inferd/server_options.h": '#include "inferd/abi_common.h"\n',
    "include/inferd/server.h": '#include "inferd/server_options.h"\n#include "inferd/inference.h"\n',
    "include/inferd/backend.h": '#include "inferd/abi_common.h"\n',
    "include/inferd/backend_bls.h": '#include "inferd/backend.h"\n#include "inferd/inference.h"\n',
    "src/core/api/server_api.cc": '#include "core/server/server.h"\n#include "inferd/server.h"\n',
    "src/core/server/server.h": '#include "core/common/log.h"\n#include <vector>\n',
    "src/core/model/model.h": '#include "core/common/log.h"\n#include "inferd/backend.h"\n',
    "src/core/model/model_test.cc": '#include "core/test_util/fake.h"\n#include "core/server/server.h"\n',
    "src/core/common/log.h": '#include "inferd/base/status.h"\n',
    "src/core/test_util/fake.h": '#include "core/common/log.h"\n',
    "src/frontends/common/error.h": '#include "inferd/server.h"\n',
    "src/frontends/http/server.cc": '#include "common/error.h"\n#include "http/session.h"\n'
                                    '#include <boost/asio.hpp>\n',
    "src/frontends/http/session.h": '#include "inferd/base/status.h"\n',
    "src/main/main.cc": '#include "http/server.h"\n#include "inferd/server.h"\n',
    "tools/loadgen/main.cc": '#include "loadgen/options.h"\n#include "inferd/base/status.h"\n',
    "tools/loadgen/options.h": "",
    "tools/check_config/main.cc": '#include "inferd/server.h"\n',
    "backends/common/config.h": '#include "inferd/backend.h"\n',
    "backends/identity/identity.cc": '#include "common/config.h"\n#include "state.h"\n',
    "backends/identity/state.h": '#include "inferd/backend.h"\n',
    "backends/python/bls.cc": '#include "inferd/backend_bls.h"\n#include "common/config.h"\n',
    "tests/unit/server_api_test.cc": '#include "core/test_util/fake.h"\n#include "inferd/server.h"\n',
}

# Each kind of way in, planted alone: (file, its text, what the report names).
PLANTED = {
    "core includes a frontend as 'frontends/...'":
        ("src/core/server/bad.cc", '#include "frontends/http/session.h"\n', "core -> frontend-http"),
    "frontend reaches the core relatively":
        ("src/frontends/http/bad.cc", '#include "../../core/common/log.h"\n',
         "frontend-http -> core"),
    "frontend reaches the core with <core/...>":
        ("src/frontends/http/bad.cc", "#include <core/common/log.h>\n", "frontend-http -> core"),
    "tool reaches the core with '#  include<core/...>'":
        ("tools/loadgen/bad.h", "#  include<core/common/log.h>\n", "tool:loadgen -> core"),
    "frontend includes the core as 'core/...'":
        ("src/frontends/common/bad.h", '#include "core/common/log.h"\n',
         "frontend-common -> core"),
    "tool reaches the core relatively":
        ("tools/loadgen/bad.cc", '#include "../../src/core/common/log.h"\n', "tool:loadgen -> core"),
    "main reaches the core from the repository root":
        ("src/main/bad.cc", '#include "src/core/server/server.h"\n', "main -> core"),
    "backend reaches a frontend":
        ("backends/identity/bad.cc", '#include "../../src/frontends/http/session.h"\n',
         "backend:identity -> frontend-http"),
    "core reaches a backend":
        ("src/core/model/bad.cc", '#include "../../../backends/identity/state.h"\n',
         "core -> backend:identity"),
    "backend includes another backend":
        ("backends/identity/bad.cc", '#include "python/bls.cc"\n',
         "backend:identity -> backend-python"),
    "backend includes the server API":
        ("backends/identity/bad.cc", '#include "inferd/server.h"\n', "backend:identity -> server-api"),
    "a backend other than python includes the BLS header":
        ("backends/identity/bad.cc", '#include "inferd/backend_bls.h"\n',
         "backend:identity -> bls-api"),
    "python backend bypasses the BLS header":
        ("backends/python/bad.cc", '#include "inferd/inference.h"\n',
         "backend-python -> inference-api"),
    "frontend includes a part of server.h instead of server.h":
        ("src/frontends/http/bad.cc", '#include "inferd/server_options.h"\n',
         "frontend-http -> server-api-parts"),
    "frontend includes the backend API":
        ("src/frontends/http/bad.cc", '#include "inferd/backend.h"\n', "frontend-http -> backend-api"),
    "frontend includes frontend-http from frontend-common":
        ("src/frontends/common/bad.cc", '#include "http/session.h"\n',
         "frontend-common -> frontend-http"),
    "tool includes another tool":
        ("tools/check_config/bad.cc", '#include "loadgen/options.h"\n',
         "tool:check_config -> tool:loadgen"),
    "base includes the server API":
        ("include/inferd/base/bad.h", '#include "inferd/server.h"\n', "base -> server-api"),
    "backend.h includes server.h":
        ("include/inferd/backend.h", '#include "inferd/server.h"\n', "backend-api -> server-api"),
    "core floor includes a higher floor":
        ("src/core/common/bad.h", '#include "core/server/server.h"\n', "not on a lower floor"),
    "core floor includes the api shell":
        ("src/core/server/bad.h", '#include "core/api/server_api.cc"\n', "not on a lower floor"),
    "core floor includes a higher floor relatively":
        ("src/core/common/bad.h", '#include "../model/model.h"\n', "not on a lower floor"),
    "product code includes test_util":
        ("src/core/model/bad.cc", '#include "core/test_util/fake.h"\n', "test-only"),
    "a core folder without a floor":
        ("src/core/gadgets/bad.h", '#include "core/common/log.h"\n', "has no floor"),
    "a source file in no part":
        ("src/stray/bad.cc", "", "belongs to no part"),
}


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check_layers_test_")
        os.makedirs(os.path.join(self.root, "scripts"))
        shutil.copy(os.path.join(HERE, "layers.json"), os.path.join(self.root, "scripts"))
        for path, text in CLEAN.items():
            self.write(path, text)

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def test_clean_tree_passes(self):
        problems, edges = check_layers.check(self.root)
        self.assertEqual(problems, [])
        self.assertEqual(edges, {"api": {"server": 1}, "server": {"common": 1},
                                 "model": {"common": 1}})

    def test_each_planted_violation_is_reported(self):
        for kind, (path, text, expected) in PLANTED.items():
            with self.subTest(kind):
                old = None
                full = os.path.join(self.root, path)
                if os.path.exists(full):
                    with open(full, encoding="utf-8") as f:
                        old = f.read()
                self.write(path, text)
                try:
                    problems, _ = check_layers.check(self.root)
                finally:
                    if old is None:
                        os.remove(full)
                    else:
                        self.write(path, old)
                self.assertEqual(len(problems), 1, problems)
                self.assertTrue(problems[0].startswith(path + ":"), problems)
                self.assertIn(expected, problems[0])

    def test_the_command_line_fails_on_a_violation(self):
        self.write("src/core/server/bad.cc", '#include "frontends/http/session.h"\n')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(check_layers.main(["--root", self.root]), 1)
        self.assertIn("layers: 1 violation(s)", out.getvalue())


if __name__ == "__main__":
    unittest.main()
