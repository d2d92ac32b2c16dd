// A long-form article, the content every rendered fixture should yield.
export function Story({ title, lead }) {
  return (
    <article>
      <h1>{title}</h1>
      <p className="lead">{lead}</p>
      <p>
        Tide pools fill and drain twice a day. The animals that live in them have to survive hours of sun,
        warm water and rising salt, then the cold crash of the returning sea. Anemones close up and hold
        water inside; snails seal their shells with a trapdoor called an operculum; crabs crowd into the
        shade under rocks and wait for the tide.
      </p>
      <h2>Three ways to keep cool</h2>
      <p>
        Some animals move, some hide, and some simply endure. Limpets clamp down so hard that they lose
        almost no water at all, and barnacles shut their plates and breathe the air trapped inside until
        the sea comes back over the rock.
      </p>
      <p>
        Visitors can help by stepping only on bare rock, putting back every stone they turn over, and
        leaving the animals where they found them: a pool is a home, not an aquarium.
      </p>
    </article>
  )
}
