/*
 * A plan as the pricing tables show it (models/tariff.server.ts reads them): here, so components know it without
 * importing a model (decision 054). The model checks its columns against this shape.
 */
export type PublicTariff = {
  tier: 1 | 2 | 3
  name: string
  monthlyPriceCents: number
  yearlyPriceCents: number
  cardLimit: number
  monthlyPushLimit: number
}
