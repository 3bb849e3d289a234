import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { scenariosOf, type FeatureScenario } from './spec/feature-scenarios.js';
import { FeatureWorld, type StepTable } from './spec/feature-world.js';
import { IDEMPOT_JS_STEPS } from './spec/idempot-js-steps.js';
import { IETF_DRAFT_STEPS } from './spec/ietf-draft-steps.js';

/**
 * The IETF Idempotency-Key draft's behaviours through idemkit's Express door, on 127.0.0.1 against
 * DynamoDB Local, one test per scenario, in two parts:
 *
 * - `spec/ietf-draft.feature`, idemkit's own statement of the draft's behaviours with idemkit's
 *   answers: every step passes.
 * - the idempot-js project's Gherkin suite (`tests/spec/idempotency.feature` of a checkout of
 *   idempot-dev/idempot-js, not part of this repository), when `IDEMPOT_JS_FEATURE` names it. Where
 *   idemkit answers otherwise by design, the step is listed below with the reason, and the test
 *   checks that the step does fail (and, for a scenario whose whole outcome differs, what idemkit
 *   answers instead): a listed difference that stops being one fails the suite as surely as a new
 *   one. docs/express.md lists the same differences for users and says how to run this part.
 */

const OWN_FEATURE = join(__dirname, 'spec', 'ietf-draft.feature');

/** The idempot-js feature file, from a checkout outside this repository. */
const IDEMPOT_JS_FEATURE = process.env.IDEMPOT_JS_FEATURE;

/** Why idemkit answers otherwise, in the words docs/express.md uses. */
const REASON = {
  problemType:
    "a problem's `type` is idemkit's URN for the answer (`urn:idemkit:problem:idempotency-key-missing`), not a link to a section of the draft",
  instance:
    "`instance` is the attempt's request id (the Lambda request id, or an id the door draws), the one its log line carries, not a `urn:uuid:` URI",
  retryable:
    'problems carry no `retryable` member: the status and `Retry-After` say whether to retry, which is what retry clients read',
  keyEcho:
    'problems do not echo the key (`idempotency_key`): the caller has it, and idemkit writes it nowhere but the record (log lines carry its hash)',
  replayHeader: 'a replay is marked `Idempotent-Replayed: true` (no `X-` prefix, the name Stripe uses)',
  wording: "a problem's detail is idemkit's words ('still in progress')",
  differentKey:
    'another key with the same body is another request and runs: a key names one intent, and only its reuse for a different request is refused (422); what must happen once whatever the key is `holdUnique`/`claimUnique`',
} as const;

/** Steps idemkit answers otherwise wherever they appear. */
const DIFFERENT_STEPS: Record<string, keyof typeof REASON> = {
  'the response body should contain "section-2.1"': 'problemType',
  'the response body should contain "section-2.2"': 'problemType',
  'the response body should contain "section-2.6"': 'problemType',
  'the response body instance field should match pattern "urn:uuid:"': 'instance',
  'the response body should contain "retryable"': 'retryable',
  'the response retryable field should be false': 'retryable',
  'the response retryable field should be true': 'retryable',
  'the response body should contain "idempotency_key"': 'keyEcho',
  'the response idempotency_key field should be "abc123456789012345678"': 'keyEcho',
  'the response should have header "x-idempotent-replayed" with value "true"': 'replayHeader',
  'the response body should contain "processed"': 'wording',
};

/** Scenarios whose outcome differs: from step `from` on, idemkit's answer is checked by `instead`. */
interface ScenarioDifference {
  readonly reason: keyof typeof REASON;
  readonly from: string;
  readonly instead: readonly string[];
}

const ANOTHER_KEY_RUNS: ScenarioDifference = {
  reason: 'differentKey',
  from: 'the response status should be 409',
  instead: [
    'the response status should be 200',
    'the response body should contain "success"',
    '2 orders should exist in the database',
  ],
};

const DIFFERENT_SCENARIOS: Record<string, ScenarioDifference> = {
  'Different key with same body returns 409': ANOTHER_KEY_RUNS,
  'Fingerprint conflict response contains error message': ANOTHER_KEY_RUNS,
  'Fingerprint conflict does not create duplicate resources': ANOTHER_KEY_RUNS,
  'Fingerprint conflict includes RFC 9457 instance field': ANOTHER_KEY_RUNS,
  'Fingerprint conflict includes RFC 9457 retryable field': ANOTHER_KEY_RUNS,
  'Fingerprint conflict error follows RFC 9457': ANOTHER_KEY_RUNS,
};

/** What one scenario runs: each step expected to pass, or to fail for a stated reason. */
function planOf(scenario: FeatureScenario): { step: string; differs?: keyof typeof REASON }[] {
  const difference = DIFFERENT_SCENARIOS[scenario.name];
  const from = difference ? scenario.steps.indexOf(difference.from) : -1;
  if (difference && from < 0) throw new Error(`"${scenario.name}" has no step "${difference.from}"`);
  const steps = from < 0 ? scenario.steps : scenario.steps.slice(0, from);
  return [
    ...steps.map((step) => ({ step, differs: DIFFERENT_STEPS[step] })),
    ...(difference
      ? [{ step: difference.from, differs: difference.reason }, ...difference.instead.map((step) => ({ step }))]
      : []),
  ];
}

/** Runs one scenario's plan in a world of its own. */
async function run(steps: StepTable, plan: readonly { step: string; differs?: keyof typeof REASON }[]): Promise<void> {
  const world = await FeatureWorld.create(steps);
  try {
    for (const { step, differs } of plan) {
      if (!differs) {
        await world.step(step);
        continue;
      }
      const outcome = await world.step(step).then(
        () => 'passed',
        () => 'failed',
      );
      const why = REASON[differs];
      expect({ step, why, outcome }).toEqual({ step, why, outcome: 'failed' });
    }
  } finally {
    await world.close();
  }
}

describe("idemkit's own feature for the IETF Idempotency-Key draft (spec/ietf-draft.feature) through the Express door, on DynamoDB Local", () => {
  const scenarios = scenariosOf(OWN_FEATURE);

  it('names each scenario once', () => {
    const names = scenarios.map((scenario) => scenario.name);

    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const scenario of scenarios) {
    it(scenario.name, () =>
      run(
        IETF_DRAFT_STEPS,
        scenario.steps.map((step) => ({ step })),
      ),
    );
  }
});

if (IDEMPOT_JS_FEATURE === undefined || IDEMPOT_JS_FEATURE === '') {
  describe('the idempot-js Gherkin suite (IETF Idempotency-Key draft)', () => {
    it.skip('is not run: IDEMPOT_JS_FEATURE does not name its feature file (docs/express.md says how to run it)', () => {});
  });
} else {
  describe(`the idempot-js Gherkin suite (IETF Idempotency-Key draft) from ${IDEMPOT_JS_FEATURE} through the Express door, on DynamoDB Local`, () => {
    if (!existsSync(IDEMPOT_JS_FEATURE)) {
      it('reads the feature file IDEMPOT_JS_FEATURE names', () => {
        expect({ IDEMPOT_JS_FEATURE, exists: false }).toEqual({ IDEMPOT_JS_FEATURE, exists: true });
      });
      return;
    }
    const scenarios = scenariosOf(IDEMPOT_JS_FEATURE);

    it('names each scenario once, and every listed difference is a scenario or step of the feature', () => {
      const names = scenarios.map((scenario) => scenario.name);
      const steps = new Set(scenarios.flatMap((scenario) => scenario.steps));

      expect(new Set(names).size).toBe(names.length);
      expect(Object.keys(DIFFERENT_SCENARIOS).filter((name) => !names.includes(name))).toEqual([]);
      expect(Object.keys(DIFFERENT_STEPS).filter((step) => !steps.has(step))).toEqual([]);
    });

    for (const scenario of scenarios) {
      const plan = planOf(scenario);
      const reasons = [...new Set(plan.flatMap(({ differs }) => (differs ? [differs] : [])))];
      const title = reasons.length ? `${scenario.name} — differs by design: ${reasons.join(', ')}` : scenario.name;

      it(title, () => run(IDEMPOT_JS_STEPS, plan));
    }
  });
}
