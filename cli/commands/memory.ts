/** `perflow memory`: a conversation as MongoDB holds it. */
import { PerflowError } from '../../client/errors';
import { readMemory } from '../../client/memory';
import { formatConversation } from '../../client/text-views';
import { requireId, withStores, type CommandHandler } from '../context';
import { answer } from '../output';

export const memory: CommandHandler = async (ctx) => {
  const { o } = ctx;
  const id = requireId(ctx, 'a memory ID');
  const view = await withStores(ctx, (stores) => readMemory(stores, id, o.tenant));
  if (!view) throw new PerflowError('not_found', `memory_id ${id} not found in MongoDB (MONGODB_URI)${o.tenant !== undefined ? ` for tenant ${o.tenant}` : ''}`);
  answer(o.json, view, () => formatConversation(view));
  return 0;
};
