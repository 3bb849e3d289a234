// The unit project starts no service: any AWS SDK client a suite builds without an endpoint is
// pointed at a closed loopback port and given dummy credentials, so a call fails at once, on
// this machine, instead of reaching AWS.
process.env.AWS_ENDPOINT_URL = 'http://127.0.0.1:9';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'unit';
process.env.AWS_SECRET_ACCESS_KEY ??= 'unit';
// Quiet as the integration setup: the guard's log lines only when asked for (POWERTOOLS_LOG_LEVEL=INFO).
process.env.POWERTOOLS_DEV ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
// The AWS SDK's notice that its releases after January 2027 need Node 22, printed once per test file's module registry
// on Node 20: the SDK's own switch turns it off (CI still runs every suite on Node 22 and 24).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
