/**
 * The vectors a turn already has, handed on as data so that the fact learner does not embed the same texts
 * again (issue 56): the turn's recall queries and the exchange's stored chunks, each recorded with the model that
 * made it. Only a text embedded alone is recorded — a batch moves a vector's last bits (USE-lite), so only a
 * request of that one text gives the learner exactly the vector it would have got. A stored chunk's (document)
 * vector stands for a query of the same text only for a model whose query and document prefixes are the same
 * (USE-lite takes none; nomic-embed-text's differ, and its chunks are never reused as queries).
 */
import type { Embedder } from "../core/context";
import { prefixesFor } from "../embedder/models";

export class EmbeddedTexts {
  private model: string | null = null;
  private readonly queries = new Map<string, Float32Array>();
  private readonly documents = new Map<string, Float32Array>();

  /** `embedder`, recording what it embeds alone into this record. */
  recording(embedder: Embedder): Embedder {
    const keep = async (into: Map<string, Float32Array>, texts: string[], vectors: Float32Array[]) => {
      if (texts.length !== 1 || !vectors[0]) return vectors;
      const { model } = await embedder.info();
      if (this.model !== model) {
        // Another model since: what was recorded is not what it would give.
        this.queries.clear();
        this.documents.clear();
        this.model = model;
      }
      into.set(texts[0]!, vectors[0]);
      return vectors;
    };
    return {
      info: () => embedder.info(),
      tokenize: (text) => embedder.tokenize(text),
      embedQueries: async (texts) => keep(this.queries, texts, await embedder.embedQueries(texts)),
      embedDocuments: async (texts) => keep(this.documents, texts, await embedder.embedDocuments(texts)),
    };
  }

  /** The vector `model` gives the query `text` embedded alone, when this record has it. */
  queryVector(model: string, text: string): Float32Array | undefined {
    if (model !== this.model) return undefined;
    const p = prefixesFor(model);
    const v = this.queries.get(text) ?? (p.query === p.document ? this.documents.get(text) : undefined);
    return v && new Float32Array(v); // a copy: the store keeps the one it was handed
  }

  get size(): number {
    return this.queries.size + this.documents.size;
  }
}
