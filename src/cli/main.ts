#!/usr/bin/env node
import { runCli } from './run-cli.js';

// The SDK warns on every run under Node 20 about its future Node 22 requirement; an operator
// tool's output is no place for it. An explicit setting in the environment still wins.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runCli(process.argv.slice(2)).then((code) => process.exit(code));
