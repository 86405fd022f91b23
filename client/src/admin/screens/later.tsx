// A section whose screen is not built yet: says so, rather than pretending.
import { Heading } from "../ui/page";

export default function Later({ title }: { title: string }) {
  return (
    <>
      <Heading title={title}>{title}</Heading>
      <p>This part of the owner's app is not built yet. Until it is, the owner API does the same over HTTP with a token.</p>
    </>
  );
}
