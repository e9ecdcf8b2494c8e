// After tsc: copies the run-time data files under src/ (e.g. src/auth/common-passwords.txt) next to the compiled code.
import { cpSync } from 'node:fs';

cpSync('src', 'dist/src', { recursive: true, filter: (path) => !path.endsWith('.ts') });
