/**
 * The memory store: memories with their vectors (vec0) and keyword index (FTS5), written in one
 * transaction each. This index is the one entry point; the parts: rows (types, the write discipline),
 * model (the bound embedding model), spaces, write, read and trash.
 */
export * from "./rows";
export * from "./model";
export * from "./spaces";
export * from "./write";
export * from "./read";
export * from "./trash";
export * from "./vector-rows";
export * from "./live-counts";
export * from "./keyword-index";
export { recencyOf } from "../retrieval/recency";
export type { OpenedDb } from "../../db";
export * from "./shares";
export * from "./importance";
export * from "./next-vectors";
