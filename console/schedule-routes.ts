/**
 * The console API's schedule routes: list and show schedules, pause, unpause, trigger and delete
 * one (docs/schedules.md). A tenant's token sees and changes only its tenant's schedules; another
 * tenant's answers as an unknown one does (404).
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { deleteSchedule, describeSchedule, listSchedules, pauseSchedule, triggerSchedule, unpauseSchedule } from '../client/schedules';
import type { ApiEnv, ApiOptions } from './api-options';
import { optionalJsonOf, parseBody, TEXT_LIMITS } from './requests';

const noteBody = z.strictObject({ note: z.string().trim().min(1).max(TEXT_LIMITS.reason).optional() });

export function scheduleRoutes(api: Hono<ApiEnv>, o: ApiOptions): void {
  const { perflow } = o;
  const scope = (c: Context<ApiEnv>) => ({ ...(c.get('scope').tenant !== undefined ? { tenant: c.get('scope').tenant } : {}) });
  const id = (c: Context<ApiEnv>) => c.req.param('id') ?? '';
  const note = async (c: Context<ApiEnv>) => parseBody(noteBody, await optionalJsonOf(c)).note;

  api.get('/schedules', async (c) => c.json(await listSchedules(perflow, scope(c))));
  api.get('/schedules/:id', async (c) => c.json(await describeSchedule(perflow, id(c), scope(c))));
  api.post('/schedules/:id/pause', async (c) => {
    await pauseSchedule(perflow, id(c), await note(c), scope(c));
    return c.json(await describeSchedule(perflow, id(c), scope(c)));
  });
  api.post('/schedules/:id/unpause', async (c) => {
    await unpauseSchedule(perflow, id(c), await note(c), scope(c));
    return c.json(await describeSchedule(perflow, id(c), scope(c)));
  });
  api.post('/schedules/:id/trigger', async (c) => {
    await triggerSchedule(perflow, id(c), scope(c));
    return c.json(await describeSchedule(perflow, id(c), scope(c)));
  });
  api.delete('/schedules/:id', async (c) => {
    await deleteSchedule(perflow, id(c), scope(c));
    return c.json({ id: id(c), deleted: true });
  });
}
