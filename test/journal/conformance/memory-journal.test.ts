import { MemoryJournal } from '../../../src/index.js';
import { journalConformance } from '../../../src/journal/conformance/index.js';

// Each case builds its own MemoryJournal: journals never share records, so races run through one journal.
journalConformance(({ clock }) => new MemoryJournal({ clock }), { describe, it, name: 'MemoryJournal conformance' });
