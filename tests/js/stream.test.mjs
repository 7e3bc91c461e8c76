// SPEC section 8 from Node, through the built package (pkg/index.cjs, the "node" entry) (the checks are shared
// with workerd: tests/js/stream_cases.mjs).
import { test } from 'node:test';

import * as selfheal from '../../pkg/index.cjs';
import { streamChecks } from './stream_cases.mjs';

for (const [name, check] of Object.entries(streamChecks(selfheal))) test(name, check);
