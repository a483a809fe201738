import factory

from accounts.models import Club, ClubMembership, User

# The one password every factory user has, so tests can log in.
PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password(PASSWORD)


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")


class ClubMembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClubMembership

    club = factory.SubFactory(ClubFactory)
    user = factory.SubFactory(UserFactory)
