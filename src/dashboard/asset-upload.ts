import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/index.js';
import { describeTargetProblem, readTargetList } from '../targets/index.js';
import { writerForm } from './forms.js';
import { link } from './layout.js';
import { PageError } from './params.js';

/** A pasted list may be long: room for some 20,000 URLs. */
const UPLOAD_FORM_LIMIT = 1024 * 1024;

/**
 * `POST /assets`: a write key uploads an asset list from the assets page (one target per line,
 * read as `keyhole assets upload` reads a file), then sees the lists again. A bad line stores
 * nothing and names the line.
 */
export function registerAssetUpload(app: FastifyInstance, store: Store): void {
  app.post('/assets', { bodyLimit: UPLOAD_FORM_LIMIT }, async (request, reply) => {
    const writer = writerForm(request);
    if (writer === undefined) return reply.redirect(link('/sign-in', { next: '/assets' }), 303);
    const name = (writer.form.get('name') ?? '').trim();
    if (name.length > 256) throw new PageError(400, 'name: at most 256 characters');
    const text = writer.form.get('targets') ?? '';
    const list = await readTargetList(Readable.from([Buffer.from(text, 'utf8')]));
    const [problem] = list.problems;
    if (problem !== undefined) {
      throw new PageError(
        400,
        `targets: line ${problem.line}: ${describeTargetProblem(problem)}; nothing was stored (fix the line and upload again)`,
      );
    }
    if (list.targets.length === 0)
      throw new PageError(400, 'targets: the list holds no target; nothing was stored');
    await store.assets.create({
      teamId: writer.principal.teamId,
      name: name === '' ? 'dashboard upload' : name,
      targets: list.targets,
    });
    return reply.redirect('/assets', 303);
  });
}
