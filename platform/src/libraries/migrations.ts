/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: libraries, their access entries, documents (metadata, extracted pages), document bytes in 1 MiB
  //    chunks, and the text chunks of processed documents with their embeddings
  `
  create table libraries (
    id text primary key,
    seq bigserial,
    organization_id text not null,
    owner_type text not null,
    owner_id text not null,
    creator_id text not null,
    name text not null,
    description text,
    chunk_size integer,
    created_at text not null,
    updated_at text not null
  );
  create table library_shares (
    library_id text not null references libraries(id) on delete cascade,
    share_with_type text not null,
    share_with_uuid text not null,
    role text not null,
    primary key (library_id, share_with_type, share_with_uuid)
  );
  create table library_documents (
    id text primary key,
    seq bigserial,
    library_id text not null references libraries(id) on delete cascade,
    name text not null,
    hash text not null,
    mime_type text,
    extension text,
    size bigint not null,
    uploaded_by_id text not null,
    attributes jsonb,
    expires_at text,
    created_at text not null,
    process_status text not null,
    last_processed_at text,
    number_of_pages integer,
    summary text,
    tokens_main integer,
    tokens_summary integer,
    failure text,
    pages jsonb
  );
  create index library_documents_library on library_documents (library_id, seq);
  create table library_document_bytes (
    document_id text not null references library_documents(id) on delete cascade,
    position integer not null,
    data bytea not null,
    primary key (document_id, position)
  );
  create table library_document_chunks (
    document_id text not null references library_documents(id) on delete cascade,
    position integer not null,
    text text not null,
    embedding bytea not null,
    primary key (document_id, position)
  );
  `,
];
