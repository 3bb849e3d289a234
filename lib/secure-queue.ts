import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * An SQS queue that refuses requests without TLS and is encrypted at rest (SQS-managed
 * keys unless the props choose otherwise).
 *
 * @example
 * const dlq = secureQueue(this, 'DeadLetterQueue', { retentionPeriod: Duration.days(14) });
 */
export function secureQueue(scope: Construct, id: string, props: QueueProps = {}): Queue {
  const encryption =
    props.encryption ?? (props.encryptionMasterKey ? QueueEncryption.KMS : QueueEncryption.SQS_MANAGED);
  return new Queue(scope, id, { ...props, encryption, enforceSSL: true });
}
