/** The signer said no; the message says which limit or which part of the envelope, and by how much. */
export class SignerRefusal extends Error {
  override readonly name = 'SignerRefusal';
}
