/** A V8 .cpuprofile as `node --cpu-prof` writes it, read by the profile tools (profile-summary.ts, long-tasks.ts). */
import { readFileSync } from 'node:fs';

export interface CallFrame { functionName: string; url: string; lineNumber: number }
export interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
export interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export function readProfile(file: string): Profile {
  return JSON.parse(readFileSync(file, 'utf8')) as Profile;
}
