/** Online scores of ended runs in MongoDB: one document per scored run (`_id`: its workflow ID), in `perflow_scores` beside the memory. */
import type { Collection, Db, Filter } from 'mongodb';
import { SCORES_COLLECTION } from '../core/memory-collections';
import type { RunScore } from '../core/scoring';

type ScoreDoc = RunScore & { _id: string };

const scoresOf = (db: Db): Collection<ScoreDoc> => db.collection<ScoreDoc>(SCORES_COLLECTION);

/** Writes a run's score whole (a retried activity writes the same again). */
export async function saveScore(db: Db, score: RunScore): Promise<void> {
  await scoresOf(db).replaceOne({ _id: score.workflow_id }, score, { upsert: true });
}

export interface ScoreQuery {
  agent?: string;
  /** Runs that ended at or after this time (ISO 8601). */
  since?: string;
  tenant?: string;
  /** The most scores read, newest first. @default 10000 */
  limit?: number;
}

/** Scored runs, newest first. */
export async function listScores(db: Db, q: ScoreQuery = {}): Promise<RunScore[]> {
  const filter: Filter<ScoreDoc> = {
    ...(q.agent !== undefined ? { agent: q.agent } : {}),
    ...(q.since !== undefined ? { ended_at: { $gte: q.since } } : {}),
    ...(q.tenant !== undefined ? { tenant_id: q.tenant } : {}),
  };
  const docs = await scoresOf(db).find(filter).sort({ ended_at: -1 }).limit(q.limit ?? 10_000).toArray();
  return docs.map(({ _id, ...score }) => (void _id, score));
}
