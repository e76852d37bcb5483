// Worker logs at WARN and above, so test output stays readable.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // already installed in this process by an earlier test file
}
